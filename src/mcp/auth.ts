import type { Via } from '../domain/mutation/events.js';
import type { Knex } from '../infra/db.js';
import { findActiveToken } from '../projections/auth/queries.js';
import { hashToken, isApiToken } from '../domain/user/token.js';
import { missingScopes, SCOPES, scopesFor, type Scope } from '../domain/user/scopes.js';
import { TOOL_TABLE } from './tool-table.js';

// /mcp and its export URLs take two kinds of bearer token through one authenticator: OAuth 2.1
// access tokens the service's authorization server issued for the /mcp resource
// (docs/decisions/099-oauth-server.md), and personal access tokens issued by the CLI (only their
// sha256 is stored). Both carry scopes (docs/decisions/100-scopes.md).

/** Who calls, with which scopes, through what. */
export interface Principal {
  userId: string;
  scopes: readonly Scope[];
  client: Via;
}

/** What a write records as made through (`via`): the caller's client or token; nothing where there is no token. */
export const viaOf = (ctx: { principal?: Principal }): { via?: Via } =>
  ctx.principal ? { via: ctx.principal.client } : {};

export type Authenticate = (token: string) => Promise<Principal | null>;

/** Checks an OAuth access token: the caller when it is live and issued for this resource, else null. */
export type AccessTokenCheck = (token: string) => Promise<Principal | null>;

/**
 * The token check of /mcp and the export URLs: a personal access token (by its hash in the auth
 * read model), else an OAuth access token (when an authorization server is configured).
 * Unknown, revoked, expired and foreign-resource tokens are refused alike.
 */
export function tokenAuthenticator(db: Knex, accessToken?: AccessTokenCheck): Authenticate {
  return async (token) => {
    // an OAuth access token never is a personal one: no lookup of it among the personal tokens
    const row = isApiToken(token) ? await findActiveToken(db, hashToken(token)) : null;
    if (!row) return accessToken ? accessToken(token) : null;
    return {
      userId: row.user_id,
      // a token issued before scopes existed holds every scope
      scopes: row.scopes ?? SCOPES,
      client: { kind: 'personal_access_token', token_id: row.token_id },
    };
  };
}

const KIND = new Map(TOOL_TABLE.map((entry) => [entry.name, entry.kind]));

/**
 * The scopes an MCP message (or a 2025-03 batch of them) needs that the caller lacks: a
 * `tools/call` of a write tool needs `mcp:write`. Checked before the message reaches the
 * server, so that a refused call admits nothing and the client can ask for more (step-up).
 */
export function scopesLacking(body: unknown, held: readonly string[]): Scope[] {
  const messages = Array.isArray(body) ? body : [body];
  const needed = new Set<Scope>();
  for (const message of messages) {
    const m = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (m?.method !== 'tools/call' || typeof m.params?.name !== 'string') continue;
    const kind = KIND.get(m.params.name);
    if (kind) for (const scope of scopesFor(kind)) needed.add(scope);
  }
  return missingScopes(held, [...needed]);
}

/** The token of an `Authorization: Bearer <token>` header; undefined when no header, null when malformed. */
export function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match ? match[1]! : null;
}

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** Where a client reads this resource's metadata (RFC 9728 section 3.1: the resource's path appended). */
export const resourceMetadataUrl = (baseUrl: string): string => `${baseUrl}${PROTECTED_RESOURCE_PATH}/mcp`;

/** RFC 9728 metadata for the /mcp resource; `issuer`: the authorization server, when one is configured. */
export function protectedResourceMetadata(baseUrl: string, issuer?: string) {
  return {
    resource: `${baseUrl}/mcp`,
    resource_name: 'Marketplace automation service (MCP)',
    authorization_servers: issuer ? [issuer] : [],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: `${baseUrl}/docs/authentication`,
  };
}

/**
 * An RFC 6750 challenge naming the resource metadata (RFC 9728 section 5.1). Parameter values
 * are our own text, never the caller's, so no quoting beyond the quotes is needed.
 */
export function bearerChallenge(
  baseUrl: string,
  params: { error?: 'invalid_token' | 'insufficient_scope'; description?: string; scope?: string } = {},
): string {
  const parts = [
    ...(params.error ? [`error="${params.error}"`] : []),
    ...(params.description ? [`error_description="${params.description}"`] : []),
    ...(params.scope ? [`scope="${params.scope}"`] : []),
    `resource_metadata="${resourceMetadataUrl(baseUrl)}"`,
  ];
  return `Bearer ${parts.join(', ')}`;
}

/** What a refusal is sent on: fastify's reply. */
interface Reply {
  code(status: number): this;
  header(name: string, value: string): this;
  send(body: unknown): unknown;
}

/**
 * 401 for a request without a token we accept: with none, a bare challenge (`scope`: what a client
 * should ask for); with one, `invalid_token`. `needed` says what the resource wants when none came.
 */
export function refuseToken(
  reply: Reply,
  baseUrl: string,
  o: { tokenGiven: boolean; needed: string; scope?: string },
): unknown {
  const description = o.tokenGiven
    ? 'the bearer token is unknown, malformed, expired, revoked or for another resource'
    : o.needed;
  const scope = o.scope ? { scope: o.scope } : {};
  return reply
    .code(401)
    .header(
      'www-authenticate',
      bearerChallenge(baseUrl, o.tokenGiven ? { error: 'invalid_token', description, ...scope } : scope),
    )
    .send({ error: 'invalid_token', error_description: description });
}

/** 403 for a request beyond the token's scopes (step-up: the challenge names the scopes to ask for). */
export function refuseScope(reply: Reply, baseUrl: string, o: { lacking: readonly string[]; scope: string }): unknown {
  const description = `this call needs the scope ${o.lacking.join(' ')}, which the token lacks; nothing was done`;
  return reply
    .code(403)
    .header('www-authenticate', bearerChallenge(baseUrl, { error: 'insufficient_scope', description, scope: o.scope }))
    .send({ error: 'insufficient_scope', error_description: description, scope: o.scope });
}

export const AUTHENTICATION_DOC = `# Authentication

\`/mcp\` takes a bearer token (\`Authorization: Bearer <token>\`) of one of two kinds, with the
same scopes:

| scope | allows |
|---|---|
| \`mcp:read\` | every read tool, and the CSV exports of \`query_data\` |
| \`mcp:write\` | with \`mcp:read\`, the write tools too (\`queue_mutations\`, \`patch_listing\`, automations…) |

A token without \`mcp:write\` is not shown the write tools; calling one anyway is answered
\`403\` with \`WWW-Authenticate: Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="…"\`,
and nothing is recorded: a client may then ask the user for the wider scope.

## OAuth 2.1 (MCP clients: Claude, ChatGPT, VS Code, Cursor, Claude Code…)

An MCP client finds everything from the \`401\` answer to an unauthenticated request: its
\`WWW-Authenticate\` header names the protected resource metadata
(\`/.well-known/oauth-protected-resource/mcp\`, RFC 9728), which names the authorization
server (issuer \`{base}/oauth\`; metadata at \`/.well-known/oauth-authorization-server/oauth\` and
\`/oauth/.well-known/openid-configuration\`).

- Authorization code flow with PKCE (\`S256\` only); the authorization response carries \`iss\` (RFC 9207).
- Clients identify themselves with a Client ID Metadata Document (the \`client_id\` is the https
  URL of their JSON metadata) or register dynamically (RFC 7591, \`/oauth/reg\`); public clients
  (\`token_endpoint_auth_method: none\`) are welcome.
- Every request names the resource (RFC 8707) \`{base}/mcp\`; access tokens are bound to it (the
  export URLs belong to it) and refused anywhere else. Access tokens last an hour.
- Refresh tokens rotate on every use; presenting a used one again revokes its whole grant.
  Tokens can be revoked at \`/oauth/token/revocation\` (RFC 7009).
- The user signs in on the service's own pages and consents on a page naming the client, where
  it sends the user back to, the scopes and the marketplace accounts it will reach.

## Personal access tokens

For scripts and clients without OAuth, the operator issues tokens with the service CLI:
\`npm run cli -- users create --name <name>\`, then
\`npm run cli -- tokens create --user <user id> [--scope read|write]\` (default \`write\`, which
includes reading), \`tokens list\` and \`tokens revoke\`. A token is shown once, stored only as its
SHA-256 hash, belongs to one user and can be revoked. Tokens issued before scopes existed hold both.

An unknown, expired, revoked or foreign token is answered \`401\` with
\`WWW-Authenticate: Bearer error="invalid_token", …, resource_metadata="…"\`.

## Who did it

Every mutation receipt records what admitted it: \`via\` on its \`MutationAdmitted\` event in
\`get_mutation\`'s \`history\` names the OAuth client (\`client_id\`) or the personal access token
(\`token_id\`).

\`/demo/mcp\` needs no token and serves a fictional seller.
`;
