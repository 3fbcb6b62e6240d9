import type { Knex } from '../infra/db.js';
import { knownScopes } from '../domain/user/scopes.js';

// The OAuth clients a seller has authorized (the console's Settings): each is a grant of
// oidc-provider's, kept in its adapter's table with the tokens issued under it
// (docs/decisions/099-oauth-server.md). Revoking deletes the grant and every code and token of it,
// as the provider's own revokeByGrantId does: the client's next call is refused, and it must ask
// for consent again.

const TABLE = 'oauth.payloads';

export interface AuthorizedClient {
  grant_id: string;
  client_id: string;
  /** the name the client registered with, when it registered here */
  client_name: string | null;
  scopes: string[];
  /** when the seller (last) allowed it */
  granted_at: Date | null;
}

interface GrantPayload {
  accountId: string;
  clientId: string;
  iat?: number;
  resources?: Record<string, string>;
}

export async function authorizedClients(db: Knex, userId: string): Promise<AuthorizedClient[]> {
  const rows: Array<{ id: string; payload: GrantPayload; client: { client_name?: string } | null }> = await db(
    `${TABLE} as g`,
  )
    .leftJoin(`${TABLE} as c`, (j) => j.on(db.raw(`c.kind = 'Client'`)).andOn(db.raw(`c.id = g.payload->>'clientId'`)))
    .where('g.kind', 'Grant')
    .whereRaw(`g.payload->>'accountId' = ?`, [userId])
    .where((q) => q.whereNull('g.expires_at').orWhere('g.expires_at', '>', db.fn.now()))
    .orderBy('g.id')
    .select('g.id', 'g.payload', 'c.payload as client');
  return rows.map((r) => ({
    grant_id: r.id,
    client_id: r.payload.clientId,
    client_name: r.client?.client_name ?? null,
    scopes: knownScopes(Object.values(r.payload.resources ?? {}).flatMap((s) => s.split(' '))),
    granted_at: r.payload.iat ? new Date(r.payload.iat * 1000) : null,
  }));
}

/** Ends the seller's grant and every token of it; false when the seller has no such grant. */
export async function revokeClient(db: Knex, userId: string, grantId: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const gone = await trx(TABLE)
      .where({ kind: 'Grant', id: grantId })
      .whereRaw(`payload->>'accountId' = ?`, [userId])
      .delete();
    if (gone === 0) return false;
    await trx(TABLE).where({ grant_id: grantId }).delete();
    return true;
  });
}
