import type { Knex } from '../infra/db.js';
import { findActiveToken } from '../projections/auth/queries.js';
import { hashToken } from '../domain/user/token.js';

// /mcp takes API bearer tokens issued by the operator CLI (the spec leaves token
// issuance "not shown"; see docs/decisions/016-authentication.md). Only their sha256 is stored.

export type Authenticate = (token: string) => Promise<{ userId: string } | null>;

/** the token check against the auth read model: unknown and revoked tokens are refused alike */
export function tokenAuthenticator(db: Knex): Authenticate {
  return async (token) => {
    const row = await findActiveToken(db, hashToken(token));
    return row && { userId: row.user_id };
  };
}

/** The token of an `Authorization: Bearer <token>` header; undefined when no header, null when malformed. */
export function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match ? match[1]! : null;
}

/** RFC 9728 metadata for the /mcp resource. */
export function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: `${baseUrl}/mcp`,
    resource_name: 'Marketplace automation service (MCP)',
    // No OAuth authorization server: API tokens are issued by the operator CLI.
    authorization_servers: [] as string[],
    bearer_methods_supported: ['header'],
    resource_documentation: `${baseUrl}/docs/authentication`,
  };
}

export const AUTHENTICATION_DOC = `# Authentication

\`/mcp\` takes an API token as \`Authorization: Bearer <token>\`. There is no OAuth
authorization server: the service operator issues tokens with the service CLI:
\`npm run cli -- users create --name <name>\`, then
\`npm run cli -- tokens create --user <user id>\` (and \`tokens revoke\`). A token is shown once, stored only as
its SHA-256 hash, maps to one user, and can be revoked; a revoked or unknown token gets
401 with a \`WWW-Authenticate\` header.

\`/demo/mcp\` needs no token and serves a fictional seller.
`;
