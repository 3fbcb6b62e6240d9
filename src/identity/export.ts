import type { Knex } from 'knex';
import { listTokens } from '../projections/auth/queries.js';
import { loadAccounts } from '../projections/accounts/queries.js';
import { listAutomations } from '../projections/automations/queries.js';
import { credentialsOf } from './credentials.js';

/**
 * A seller's own data as a JSON document (docs/decisions/094-account-deletion-and-export.md):
 * the profile without its secrets (no password hash, TOTP secret or reset token), the accounts,
 * the automations, and API token metadata (never a token or its hash).
 */
export async function exportAccount(db: Knex, userId: string) {
  const me = await credentialsOf(db, userId);
  const accounts = await loadAccounts(db, userId);
  const automations = accounts.length
    ? await listAutomations(
        db,
        accounts.map((a) => a.id),
        { include_archived: true },
      )
    : [];
  const tokens = await listTokens(db, userId);
  return {
    exported_at: new Date().toISOString(),
    profile: {
      user_id: userId,
      email: me?.email ?? null,
      signed_up_at: me?.created_at ?? null,
      second_factor: me?.totp_secret ? 'totp' : null,
    },
    accounts,
    automations,
    api_tokens: tokens.map((t) => ({
      token_id: t.token_id,
      label: t.label,
      created_at: t.created_at,
      revoked_at: t.revoked_at,
    })),
  };
}
