import { generateKeyPairSync, randomBytes, randomUUID, type JsonWebKey } from 'node:crypto';
import type { Knex } from '../infra/db.js';

// The authorization server's secrets (docs/decisions/101-oauth-keys.md): the keys that sign what
// it signs (ID tokens; access tokens are opaque) and the keys of its signed cookies. Configured
// (OAUTH_JWKS, OAUTH_COOKIE_KEYS), or else generated once, stored in the database and shared by
// every api process. Never logged, never in the event log.

export interface OAuthKeys {
  /** private JWKs, the first one signing */
  jwks: JsonWebKey[];
  /** the first one signs cookies; the others are still accepted (rotation) */
  cookieKeys: string[];
}

const STORED = 'oauth.keys';
const NAME = 'generated';

const generated = (): OAuthKeys => {
  // RS256: the algorithm OpenID Connect clients expect unless they register another
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    jwks: [{ ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' }],
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
};

/** `OAUTH_JWKS` is a JWK Set (`{"keys":[…]}`) of private keys; `OAUTH_COOKIE_KEYS` comma-separated secrets. */
export function configuredKeys(env: { OAUTH_JWKS?: string; OAUTH_COOKIE_KEYS?: string }): Partial<OAuthKeys> {
  const keys: Partial<OAuthKeys> = {};
  if (env.OAUTH_JWKS) {
    const parsed = JSON.parse(env.OAUTH_JWKS) as { keys?: JsonWebKey[] };
    if (!Array.isArray(parsed.keys) || parsed.keys.length === 0 || parsed.keys.some((k) => !k.d))
      throw new Error('OAUTH_JWKS: a JWK Set of private keys ({"keys":[…]}, each with its private part)');
    keys.jwks = parsed.keys;
  }
  if (env.OAUTH_COOKIE_KEYS) keys.cookieKeys = env.OAUTH_COOKIE_KEYS.split(',').filter(Boolean);
  return keys;
}

/** The configured keys, the rest from the database (generated and stored by the first process that needs them). */
export async function oauthKeys(db: Knex, configured: Partial<OAuthKeys>): Promise<OAuthKeys> {
  if (configured.jwks && configured.cookieKeys) return configured as OAuthKeys;
  // first writer wins: every process then reads the same keys
  await db(STORED)
    .insert({ name: NAME, value: JSON.stringify(generated()) })
    .onConflict('name')
    .ignore();
  const row = await db(STORED).where({ name: NAME }).first<{ value: OAuthKeys }>('value');
  return { jwks: configured.jwks ?? row.value.jwks, cookieKeys: configured.cookieKeys ?? row.value.cookieKeys };
}
