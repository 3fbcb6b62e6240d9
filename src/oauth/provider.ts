import { request as httpsRequest } from 'node:https';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Knex } from '../infra/db.js';
import type { AccessTokenCheck } from '../mcp/auth.js';
import { html, page } from '../web/page.js';
import { postgresAdapter } from './adapter.js';
import type { OAuthKeys } from './keys.js';
import { knownScopes, SCOPES } from '../domain/user/scopes.js';

// The OAuth 2.1 authorization server of the /mcp resource: panva's oidc-provider with the
// features MCP clients use (docs/decisions/099-oauth-server.md). Its issuer is `{base}/oauth`;
// it serves only the authorization code flow with PKCE S256, for the one resource `{base}/mcp`.

export const OAUTH_PATH = '/oauth';
export const INTERACTION_PATH = `${OAUTH_PATH}/interaction`;
/** oidc-provider 9.13's version of the Client ID Metadata Document draft (the feature is experimental) */
const CIMD_ACK = 'draft-02';

export interface OAuthServerOptions {
  /** the service's public origin, e.g. https://mcp.example.com (no trailing slash) */
  baseUrl: string;
  db: Knex;
  keys: OAuthKeys;
  /** how long an access token lasts; an hour unless a test shortens it */
  accessTokenTtlSeconds?: number;
  /**
   * Test configuration only (docs/decisions/102-oauth-test-ca.md): a CA certificate (PEM) trusted
   * when fetching Client ID Metadata Documents, which may then be served on loopback.
   */
  testCa?: string;
}

export interface OAuthServer {
  provider: Provider;
  /** the service's public origin the issuer and the resource are under */
  baseUrl: string;
  issuer: string;
  /** the protected resource every token is bound to */
  resource: string;
  checkAccessToken: AccessTokenCheck;
}

const DAY = 24 * 60 * 60;

export function oauthServer(options: OAuthServerOptions): OAuthServer {
  const issuer = `${options.baseUrl}${OAUTH_PATH}`;
  const resource = `${options.baseUrl}/mcp`;
  const accessTokenTTL = options.accessTokenTtlSeconds ?? 3600;
  const provider = new Provider(issuer, {
    adapter: postgresAdapter(options.db),
    clients: [],
    jwks: { keys: options.keys.jwks },
    cookies: { keys: options.keys.cookieKeys },
    // accounts are the service's users; the subject is the user id and no other claim is released
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    claims: { openid: ['sub'] },
    scopes: ['openid', 'offline_access', ...SCOPES],
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    // every client that may refresh gets a refresh token (not only on offline_access: MCP clients rarely ask)
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    // each use returns a new refresh token; a used one presented again revokes the whole grant
    rotateRefreshToken: true,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // a client revokes its own tokens only (RFC 7009 section 2.1)
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId: string }) =>
          token.clientId === client.clientId,
      },
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`this server issues tokens for ${resource} only`);
          return { scope: SCOPES.join(' '), audience: resource, accessTokenTTL, accessTokenFormat: 'opaque' };
        },
      },
      clientIdMetadataDocument: { enabled: true, ack: CIMD_ACK },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${INTERACTION_PATH}/${interaction.uid}` },
    ttl: {
      AccessToken: accessTokenTTL,
      AuthorizationCode: 60,
      Interaction: 3600,
      Session: 14 * DAY,
      Grant: 365 * DAY,
      RefreshToken: 30 * DAY,
    },
    renderError: async (ctx: KoaContextWithOIDC & { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = errorPage(out);
    },
    ...(options.testCa ? { fetch: fetchTrusting(options.testCa) } : {}),
  });
  // behind a TLS-terminating proxy (an https base) the request's scheme comes from X-Forwarded-Proto
  provider.proxy = options.baseUrl.startsWith('https:');
  return {
    provider,
    baseUrl: options.baseUrl,
    issuer,
    resource,
    checkAccessToken: accessTokenCheck(provider, resource),
  };
}

function accessTokenCheck(provider: Provider, resource: string): AccessTokenCheck {
  return async (token) => {
    // unknown, revoked (destroyed) and expired tokens are not found
    const found = await provider.AccessToken.find(token);
    if (!found || found.isExpired) return null;
    const audience = Array.isArray(found.aud) ? found.aud : [found.aud];
    // a token for another resource is no token here (RFC 8707, MCP authorization: audience validation)
    if (!audience.includes(resource)) return null;
    return {
      userId: found.accountId,
      scopes: knownScopes((found.scope ?? '').split(' ')),
      client: { kind: 'oauth_client', client_id: found.clientId },
    };
  };
}

/**
 * The fetch oidc-provider reads Client ID Metadata Documents with, under test configuration: it
 * trusts the test CA and reaches loopback (the default fetch refuses special-use addresses).
 */
function fetchTrusting(ca: string): typeof fetch {
  return (url, init) =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      const req = httpsRequest(
        String(url),
        { method: init?.method ?? 'GET', headers, ca, ...(init?.signal ? { signal: init.signal } : {}) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const answer = new Headers();
            for (const [name, value] of Object.entries(res.headers))
              for (const v of [value ?? []].flat()) answer.append(name, v);
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 502, headers: answer }));
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
}

/** The authorization server's error page (no redirect possible: e.g. an unknown client or a wrong redirect_uri). */
const errorPage = (out: Record<string, string>): string =>
  page(
    { title: 'This sign-in cannot go on' },
    html`<p><code>${out.error}</code>: ${out.error_description}</p>
      <p>Start again from your MCP client.</p>`,
  );
