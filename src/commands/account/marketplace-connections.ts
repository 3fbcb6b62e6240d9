import { randomBytes } from 'node:crypto';
import { sha256 } from '../../domain/shared/canonical.js';
import type { Knex } from 'knex';
import type { ConnectionKind } from '../../domain/account/events.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { eraseSecrets, isVaultReference, SECRETS_SCHEMA, VAULT_PREFIX, type Vault } from '../../secrets/vault.js';
import type { CommandContext } from '../shared/handler.js';
import { executeAccountCommand } from './execute.js';

// The marketplace connections a seller makes on the connections pages (docs/decisions/096-
// seller-made-connections.md): the authorization state the marketplace's consent page hands
// back, the refresh token sealed in the vault under the account's reference, the connection
// jobs that record it, and disconnection (the secret erased, the connections inactive).

/** The vault reference of an account's page-made connections: what its connection events name. */
export const vaultReference = (account_id: string): string => `${VAULT_PREFIX}${account_id}`;

/** How long a consent may take between leaving our page and coming back. */
export const STATE_TTL_MS = 10 * 60_000;
const STATES = `${SECRETS_SCHEMA}.connection_states`;

/** A new random state for a connection the user starts; only its hash is kept. */
export async function issueState(
  db: Knex,
  start: { user_id: string; kind: ConnectionKind; account_id: string | null },
  now = new Date(),
): Promise<string> {
  const state = randomBytes(32).toString('base64url');
  await db.table(STATES).where('expires_at', '<', now).delete();
  await db.table(STATES).insert({
    state_hash: sha256(state),
    ...start,
    expires_at: new Date(now.getTime() + STATE_TTL_MS),
  });
  return state;
}

/** Uses a state up: the account it was issued for (null: a new one), or null when it is unknown,
 * another user's or another kind's, used already or expired. */
export async function consumeState(
  db: Knex,
  state: string,
  expected: { user_id: string; kind: ConnectionKind },
  now = new Date(),
): Promise<{ account_id: string | null } | null> {
  const [row]: { account_id: string | null }[] = await db
    .table(STATES)
    .where({ state_hash: sha256(state), ...expected })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .update({ used_at: now })
    .returning(['account_id']);
  return row ?? null;
}

interface ConnectionRow {
  provider_id: string;
  credentials?: string | null;
  inactive?: unknown;
}
interface AccountRow {
  account_id: string;
  user_id: string;
  selling: ConnectionRow | null;
  ads: ConnectionRow | null;
}
const accounts = (db: Knex) => db.withSchema(READ_MODEL_SCHEMA).table('accounts');

/** The user's accounts made on the connections pages (an advertising connection may join one). */
export async function pageMadeAccounts(db: Knex, user_id: string): Promise<AccountRow[]> {
  const rows: AccountRow[] = await accounts(db)
    .where({ user_id })
    .select('account_id', 'user_id', 'selling', 'ads')
    .orderBy('account_id');
  return rows.filter((r) => isVaultReference(r.selling?.credentials) || isVaultReference(r.ads?.credentials));
}

/** Another account whose active selling connection is this seller's, if any: the marketplace
 * delivers a seller's notifications to one destination, so a second account of the same seller
 * would never see its events (docs/decisions/097-one-account-per-seller.md). */
export async function sellerConnectedElsewhere(
  db: Knex,
  selling_partner_id: string,
  account_id: string,
): Promise<boolean> {
  const rows: AccountRow[] = await accounts(db)
    .whereRaw(`selling->>'provider_id' = ?`, [selling_partner_id])
    .whereNot({ account_id })
    .select('account_id', 'user_id', 'selling', 'ads');
  return rows.some((r) => r.selling && !r.selling.inactive);
}

/** A connection job's subject: the account and the credential name its events record. */
export interface ConnectionJob {
  user_id: string;
  account_id: string;
  credentials: string;
}

export interface ConnectionDeps {
  db: Knex;
  ctx: CommandContext;
  vault: Vault;
  /** has the worker read the connection at once (reviving a disconnected one) and every 15 minutes after */
  connect: (job: ConnectionJob) => Promise<void>;
}

/**
 * Seals the connection's refresh token under the account's reference and has the worker read
 * the connection at once (made active again if it was disconnected) and every 15 minutes after.
 */
export async function completeConnection(
  deps: ConnectionDeps,
  made: { user_id: string; account_id: string; kind: ConnectionKind; refreshToken: string; sellingPartnerId?: string },
): Promise<void> {
  const credentials = vaultReference(made.account_id);
  await deps.vault.put(credentials, made.kind, made.refreshToken, made.sellingPartnerId);
  await deps.connect({ user_id: made.user_id, account_id: made.account_id, credentials });
}

/**
 * Disconnects an account's page-made connections: each goes inactive (`disconnected`; its syncs
 * and stream subscriptions stop, docs/decisions/062-inactive-connections.md) and its secrets are
 * erased. False when the user has no such account.
 */
export async function disconnectAccount(
  deps: Pick<ConnectionDeps, 'db' | 'ctx'>,
  user_id: string,
  account_id: string,
  at = new Date(),
): Promise<boolean> {
  const account = (await pageMadeAccounts(deps.db, user_id)).find((a) => a.account_id === account_id);
  if (!account) return false;
  for (const connection of ['selling', 'ads'] as const) {
    if (!isVaultReference(account[connection]?.credentials)) continue;
    await executeAccountCommand(deps.ctx, {
      type: 'DeactivateConnection',
      account_id,
      connection,
      cause: 'disconnected',
      detail: 'disconnected by the seller on the connections page; its authorization was erased',
      at: at.toISOString(),
    });
  }
  await eraseSecrets(deps.db, vaultReference(account_id));
  return true;
}

/** Disconnects every marketplace connection a user made on the connections pages (account
 * deletion calls it); how many accounts were disconnected. */
export async function revokeMarketplaceConnections(
  deps: Pick<ConnectionDeps, 'db' | 'ctx'>,
  user_id: string,
): Promise<number> {
  const made = await pageMadeAccounts(deps.db, user_id);
  for (const account of made) await disconnectAccount(deps, user_id, account.account_id);
  return made.length;
}
