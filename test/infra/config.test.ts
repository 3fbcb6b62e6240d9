import { expect } from 'chai';
import { ConfigError, loadConfig, SIMULATOR_INGESTION_SECRET } from '../../src/infra/config.js';

// INGESTION_SECRET: every account's event signing secret derives from it.

const REAL = {
  SELLING_API_URL: 'https://sellingpartnerapi-na.amazon.com',
  ADS_API_URL: 'https://advertising-api.amazon.com',
  LWA_TOKEN_URL: 'https://api.amazon.com/auth/o2/token',
};

describe('configuration: INGESTION_SECRET', () => {
  it('defaults to the simulator secret only while the simulator is the marketplace', () => {
    expect(loadConfig({}).INGESTION_SECRET).to.equal(SIMULATOR_INGESTION_SECRET);
    expect(() => loadConfig(REAL)).to.throw(ConfigError, /INGESTION_SECRET: required/);
    expect(loadConfig({ ...REAL, INGESTION_SECRET: 's3cret' }).INGESTION_SECRET).to.equal('s3cret');
  });
  it('refuses an empty secret', () => {
    expect(() => loadConfig({ INGESTION_SECRET: '' })).to.throw(ConfigError, /INGESTION_SECRET: must not be empty/);
  });
});

describe('configuration: webhooks', () => {
  it('derives a signing key of its own from INGESTION_SECRET unless WEBHOOK_SIGNING_KEY is set', () => {
    const derived = loadConfig({ ...REAL, INGESTION_SECRET: 's3cret' }).WEBHOOK_SIGNING_KEY;
    expect(derived).to.not.equal('s3cret');
    expect(loadConfig({ ...REAL, INGESTION_SECRET: 'other' }).WEBHOOK_SIGNING_KEY).to.not.equal(derived);
    expect(loadConfig({ WEBHOOK_SIGNING_KEY: 'k' }).WEBHOOK_SIGNING_KEY).to.equal('k');
    expect(() => loadConfig({ WEBHOOK_SIGNING_KEY: '' })).to.throw(
      ConfigError,
      /WEBHOOK_SIGNING_KEY: must not be empty/,
    );
  });
  it('keeps private networks out of reach unless the operator says true', () => {
    expect(loadConfig({}).WEBHOOK_ALLOW_PRIVATE_NETWORKS).to.equal(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).WEBHOOK_ALLOW_PRIVATE_NETWORKS).to.equal(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' }).WEBHOOK_ALLOW_PRIVATE_NETWORKS).to.equal(false);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'maybe' })).to.throw(
      ConfigError,
      /WEBHOOK_ALLOW_PRIVATE_NETWORKS/,
    );
  });
});

describe('configuration: MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS', () => {
  it('keeps the hostname of each entry, however written (the guards compare hostnames)', () => {
    const c = loadConfig({
      MCP_ALLOWED_HOSTS: 'MCP.internal:3000, mcp.example.com,,',
      MCP_ALLOWED_ORIGINS: 'https://Console.example.com, http://localhost:5173/, app.example.com:8443, vscode-file://*',
    });
    expect(c.MCP_ALLOWED_HOSTS).to.deep.equal(['mcp.internal', 'mcp.example.com']);
    expect(c.MCP_ALLOWED_ORIGINS).to.deep.equal([
      'console.example.com',
      'localhost',
      'app.example.com',
      'vscode-file://*',
    ]);
  });
  it('refuses an entry that names no host', () => {
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'https://' })).to.throw(ConfigError, /MCP_ALLOWED_ORIGINS/);
  });
});

describe('configuration: TRUST_PROXY', () => {
  it('trusts no proxy unless told, a hop count, or the named proxies', () => {
    expect(loadConfig({}).TRUST_PROXY).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).to.equal(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::1' }).TRUST_PROXY).to.deep.equal([
      'loopback',
      '10.0.0.0/8',
      'fd00::1',
    ]);
  });
  it('refuses true (every X-Forwarded-For believed) and what names no proxy', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).to.throw(ConfigError, /TRUST_PROXY: 'true' is not a hop count/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.1,proxy.local' })).to.throw(ConfigError, /'proxy.local' is not/);
  });
});
