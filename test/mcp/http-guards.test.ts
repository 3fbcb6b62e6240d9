import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { createDb, type Knex } from '../../src/infra/db.js';
import { MAX_MCP_BODY_BYTES } from '../../src/mcp/mcp-handler.js';
import { buildHttpServer } from '../../src/mcp/server.js';
import { prepareReadModels } from '../support/seed.js';

// What a browser page could make of the MCP endpoints, and the protocol's own refusals, over
// raw HTTP (a client would never send these): DNS rebinding (a foreign Host), another site's
// page (a foreign Origin), oversized bodies, a revision the service does not serve.

interface Answer {
  status: number;
  body: string;
}

/** The headers a 2026-07-28 server/discover carries besides its body's envelope. */
const asModern = (version: string) => ({ 'mcp-protocol-version': version, 'mcp-method': 'server/discover' });

const discover = (version: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': version,
        'io.modelcontextprotocol/clientInfo': { name: 'guards-test', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });

describe('MCP endpoints: Host, Origin, body size and revision guards', () => {
  let db: Knex;
  let app: ReturnType<typeof buildHttpServer>;
  let port: number;

  /** POSTs `body` to `path` with these headers; node:http, since fetch will not send a Host of our choosing. */
  const post = (path: string, headers: Record<string, string>, body: string) =>
    new Promise<Answer>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await prepareReadModels(db);
    app = buildHttpServer({
      db,
      logger: pino({ level: 'silent' }),
      authenticate: async () => null,
      demoUserId: '00000000-0000-4000-8000-000000000000',
      publicBaseUrl: 'https://mcp.example.com',
      allowedHosts: ['mcp.internal'],
      allowedOrigins: ['console.example.com'],
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await app?.close();
    await db?.destroy();
  });

  it('serves loopback, the public base URL and the configured hosts', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'mcp.example.com', 'mcp.internal:8080']) {
      const answer = await post('/demo/mcp', { host, ...asModern('2026-07-28') }, discover('2026-07-28'));
      expect(answer.status, host).to.equal(200);
      expect(JSON.parse(answer.body).result.supportedVersions).to.include('2026-07-28');
    }
  });

  it('refuses a foreign Host with 403 on both endpoints, before /mcp asks for a token', async () => {
    for (const path of ['/demo/mcp', '/mcp']) {
      const answer = await post(
        path,
        { host: 'attacker.example:3000', ...asModern('2026-07-28') },
        discover('2026-07-28'),
      );
      expect(answer.status, path).to.equal(403);
      expect(JSON.parse(answer.body).error.message).to.match(/host/i);
    }
  });

  it('refuses a page of a foreign origin with 403, and serves loopback and configured origins', async () => {
    const foreign = await post(
      '/demo/mcp',
      { origin: 'https://attacker.example', ...asModern('2026-07-28') },
      discover('2026-07-28'),
    );
    expect(foreign.status).to.equal(403);
    expect(JSON.parse(foreign.body).error.message).to.match(/origin/i);
    for (const origin of ['http://localhost:5173', 'https://console.example.com'])
      expect(
        (await post('/demo/mcp', { origin, ...asModern('2026-07-28') }, discover('2026-07-28'))).status,
        origin,
      ).to.equal(200);
  });

  it('answers no CORS preflight: no browser page of another origin is served', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/demo/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(res.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it(`refuses a body over ${MAX_MCP_BODY_BYTES} bytes with 413 before parsing it`, async () => {
    const padding = 'x'.repeat(MAX_MCP_BODY_BYTES);
    const answer = await post(
      '/demo/mcp',
      asModern('2026-07-28'),
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"${padding}"}}`,
    );
    expect(answer.status).to.equal(413);
  });

  it('answers a revision it does not serve with UnsupportedProtocolVersionError naming the ones it does', async () => {
    const answer = await post('/demo/mcp', asModern('2099-01-01'), discover('2099-01-01'));
    expect(answer.status).to.equal(400);
    expect(JSON.parse(answer.body).error).to.deep.include({
      code: -32022,
      data: { supported: ['2026-07-28'], requested: '2099-01-01' },
    });
  });

  it('answers a 2025 initialize with the revision asked for, on the same URL', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const answer = await post('/demo/mcp', {}, initialize);
    expect(answer.status).to.equal(200);
    const data = answer.body.split('\n').find((l) => l.startsWith('data: '))!;
    expect(JSON.parse(data.slice('data: '.length)).result.protocolVersion).to.equal('2025-06-18');
  });
});
