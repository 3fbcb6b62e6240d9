import { readFileSync } from 'node:fs';
import type { Config } from '../infra/config.js';
import type { Knex } from '../infra/db.js';
import { configuredKeys, oauthKeys } from './keys.js';
import { oauthServer, type OAuthServer } from './provider.js';

/**
 * The origin the issuer and the resource are named under: PUBLIC_BASE_URL, else the address the
 * service listens on (localhost for a wildcard address). A client must reach /mcp by this very URL:
 * the resource it is told must be the one it asked (MCP authorization, RFC 9728 section 3.3).
 */
export function oauthBaseUrl(config: Pick<Config, 'PUBLIC_BASE_URL' | 'HOST' | 'PORT'>): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const host = ['0.0.0.0', '::', ''].includes(config.HOST) ? 'localhost' : config.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}`;
}

/** The authorization server as configured (keys from configuration or the database). */
export async function startOAuth(config: Config, db: Knex): Promise<OAuthServer> {
  // a test CA is trusted only under test configuration, whatever else is set
  const testCa =
    config.NODE_ENV === 'test' && config.OAUTH_TEST_CA_FILE
      ? readFileSync(config.OAUTH_TEST_CA_FILE, 'utf8')
      : undefined;
  return oauthServer({
    baseUrl: oauthBaseUrl(config),
    db,
    keys: await oauthKeys(db, configuredKeys(config)),
    ...(testCa ? { testCa } : {}),
  });
}
