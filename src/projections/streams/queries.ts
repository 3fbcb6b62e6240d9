import type { Knex } from '../../infra/db.js';
import { streamTypeRefusal, type StreamAccount } from '../../domain/stream/eligibility.js';
import type { SubscriptionStatus } from '../../domain/stream/subscription.js';
import { STREAM_TYPES, type StreamType } from '../../domain/stream/types.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { STREAMS_TABLE } from './projection.js';

// Reads of the streams read model: list_streams' rows, the automations' `subscription`, and what
// the subscriptions sweep compares with what should be subscribed.

export interface SubscriptionRow {
  account_id: string;
  stream_type: string;
  status: SubscriptionStatus;
  subscription_ids: string[];
  error: string | null;
  changed_at: string | null;
  live_automation_id: string | null;
  released_at: Date | null;
}

const key = (account_id: string, stream_type: string) => `${account_id}.${stream_type}`;

/** The subscription rows of these accounts (every account when null), by `<account>.<stream type>`. */
export async function subscriptionRows(
  db: Knex,
  accountIds: readonly string[] | null,
): Promise<Map<string, SubscriptionRow>> {
  const query = db
    .withSchema(READ_MODEL_SCHEMA)
    .table(STREAMS_TABLE)
    .select(
      'account_id',
      'stream_type',
      'status',
      'subscription_ids',
      'error',
      db.raw(`to_json(changed_at) #>> '{}' as changed_at`),
      'live_automation_id',
      'released_at',
    );
  if (accountIds) query.whereIn('account_id', accountIds);
  const rows: SubscriptionRow[] = await query;
  return new Map(rows.map((r) => [key(r.account_id, r.stream_type), r]));
}

export const subscriptionOfRow = (rows: Map<string, SubscriptionRow>, account_id: string, stream_type: string) =>
  rows.get(key(account_id, stream_type));

/** The event types an account's connections carry (spec 5 rule 5), all 26 considered. */
export const typesOf = (account: StreamAccount): StreamType[] =>
  STREAM_TYPES.filter((t) => streamTypeRefusal(t, account) === null);

/**
 * spec 2.4, 3.1: a stream waiting for its subscribe (or for a retry after a failed one) is
 * `pending`; so is one a live automation needs that the worker has yet to request, so an
 * activation shows at once.
 */
function streamStatus(t: StreamType, row: SubscriptionRow | undefined): 'active' | 'inactive' | 'pending' {
  if (t.policy === 'not_required') return 'active';
  const status = row?.status ?? 'inactive';
  if ((status === 'inactive' || status === 'unsubscribing') && row?.live_automation_id) return 'pending';
  switch (status) {
    case 'active':
      return 'active';
    case 'requested':
    case 'pending':
    case 'failed':
      return 'pending';
    case 'inactive':
    case 'unsubscribing':
      return 'inactive';
  }
}

/** list_streams: one row per event type each account's connections carry, in spec 6's order. */
export async function listStreams(db: Knex, accounts: readonly StreamAccount[]) {
  const rows = await subscriptionRows(
    db,
    accounts.map((a) => a.id),
  );
  return accounts.flatMap((account) =>
    typesOf(account).map((t) => {
      const row = subscriptionOfRow(rows, account.id, t.code);
      return {
        account_id: account.id,
        account_name: account.name,
        stream_type: t.code,
        source: t.source,
        policy: t.policy,
        status: streamStatus(t, row),
        subscription: t.policy === 'not_required' ? ('not_required' as const) : (row?.status ?? 'inactive'),
        live_automation_id: row?.live_automation_id ?? null,
        // a failure, or why a subscription the marketplace lost is being requested again
        error: row?.status === 'failed' || row?.status === 'requested' ? row.error : null,
        provider_subscription_ids: row?.subscription_ids ?? [],
        changed_at: row?.changed_at ?? null,
      };
    }),
  );
}

/** Every account, as the subscriptions sweep sees them (a connection is there once authorized). */
export async function allStreamAccounts(db: Knex): Promise<StreamAccount[]> {
  const rows: Array<{
    account_id: string;
    name: string;
    entity_type: 'seller' | 'vendor';
    selling: { inactive?: unknown } | null;
    ads: { inactive?: unknown } | null;
  }> = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .select('account_id', 'name', 'entity_type', 'selling', 'ads');
  return rows.map((r) => ({
    id: r.account_id,
    name: r.name,
    entity_type: r.entity_type,
    connected: { selling: r.selling !== null, ads: r.ads !== null },
    active: { selling: !!r.selling && !r.selling.inactive, ads: !!r.ads && !r.ads.inactive },
  }));
}

/** The provider ids of an account's advertising profiles (a Marketing Stream subscription is per profile). */
export async function profileIdsOf(db: Knex, account_id: string): Promise<string[]> {
  const rows: Array<{ provider_profile_id: string }> = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('advertising_profiles')
    .where({ account_id })
    .orderBy('provider_profile_id')
    .select('provider_profile_id');
  return rows.map((r) => r.provider_profile_id);
}
