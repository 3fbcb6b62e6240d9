import { prepared, type Knex } from '../../infra/db.js';
import { afterKeyset, type Keyset } from '../keyset.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { ATTEMPTS_TABLE, DELIVERIES_TABLE } from './deliveries.js';
import { WEBHOOKS_TABLE } from './projection.js';

// Reads of the webhook read models: the names an automation's context offers, the settings list
// and the deliveries' activity.

const table = (db: Knex, name: string) => db.withSchema(READ_MODEL_SCHEMA).table(name);
const iso = (db: Knex, column: string) => db.raw(`to_json(??) #>> '{}' as ??`, [column, column]);

/** Names of the account's enabled webhooks, sorted: the keys of `context.webhooks` (spec 2.13). */
/** The account's enabled webhooks' names, in order: rows of `{ name }` (readTogether takes it beside others). */
export const enabledWebhooksQuery = (db: Knex, accountId: string) =>
  table(db, WEBHOOKS_TABLE)
    .where({ account_id: accountId, enabled: true })
    .whereNull('removed_at')
    .orderBy('name')
    .select('name');

export const webhookNamesOf = (rows: readonly unknown[]): string[] =>
  (rows as Array<{ name: string }>).map((r) => r.name);

export async function enabledWebhookNames(db: Knex, accountId: string): Promise<string[]> {
  return webhookNamesOf(await prepared<{ name: string }[]>(() => enabledWebhooksQuery(db, accountId)));
}

export interface WebhookRow {
  webhook_id: string;
  name: string;
  url: string;
  kind: 'json' | 'chat';
  enabled: boolean;
  /** header values are never shown */
  header_names: string[];
  created_at: string;
  updated_at: string;
  secret_rotated_at: string | null;
}

/** The account's webhooks (not removed ones), by name. */
export async function listWebhooks(db: Knex, accountId: string): Promise<WebhookRow[]> {
  return table(db, WEBHOOKS_TABLE)
    .where({ account_id: accountId })
    .whereNull('removed_at')
    .orderBy('name')
    .select(
      'webhook_id',
      'name',
      'url',
      'kind',
      'enabled',
      'header_names',
      iso(db, 'created_at'),
      iso(db, 'updated_at'),
      iso(db, 'secret_rotated_at'),
    );
}

export interface AttemptRow {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status: number | null;
  response: string | null;
  error: string | null;
  outcome: 'delivered' | 'retry' | 'failed';
}

export interface DeliveryRow {
  delivery_id: string;
  webhook_id: string;
  webhook_name: string;
  cause: Record<string, unknown>;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: AttemptRow[];
  last_error: string | null;
  next_attempt_at: string | null;
  requested_at: string;
}

/** The account's most recent deliveries (of one webhook, in one status, after a keyset when given),
 * newest first, with their attempts. */
export async function listDeliveries(
  db: Knex,
  accountId: string,
  filter: {
    webhook_name?: string;
    status?: DeliveryRow['status'];
    /** only what automations posted on this event */
    event_id?: string;
    before?: Keyset | null;
    limit: number;
  },
): Promise<DeliveryRow[]> {
  const query = afterKeyset(table(db, DELIVERIES_TABLE), 'requested_at', 'delivery_id', filter.before)
    .where({ account_id: accountId })
    .orderBy([
      { column: 'requested_at', order: 'desc' },
      { column: 'delivery_id', order: 'desc' },
    ])
    .limit(filter.limit)
    .select(
      'delivery_id',
      'webhook_id',
      'webhook_name',
      'cause',
      'status',
      'last_error',
      iso(db, 'next_attempt_at'),
      iso(db, 'requested_at'),
    );
  if (filter.webhook_name) query.where({ webhook_name: filter.webhook_name });
  if (filter.status) query.where({ status: filter.status });
  if (filter.event_id) query.whereRaw("cause->>'event_id' = ?", [filter.event_id]);
  const rows: Omit<DeliveryRow, 'attempts'>[] = await query;
  const attempts: (AttemptRow & { delivery_id: string })[] = await table(db, ATTEMPTS_TABLE)
    .whereIn(
      'delivery_id',
      rows.map((r) => r.delivery_id),
    )
    .orderBy(['delivery_id', 'attempt'])
    .select('delivery_id', 'attempt', iso(db, 'started_at'), 'duration_ms', 'status', 'response', 'error', 'outcome');
  return rows.map((r) => ({
    ...r,
    attempts: attempts.filter((a) => a.delivery_id === r.delivery_id).map(({ delivery_id: _, ...a }) => a),
  }));
}

/** The accounts' deliveries requested since `since`, counted per status. */
export async function deliveryCounts(
  db: Knex,
  accountIds: readonly string[],
  since: Date,
): Promise<Record<DeliveryRow['status'], number>> {
  const rows: Array<{ status: DeliveryRow['status']; n: string }> = await table(db, DELIVERIES_TABLE)
    .whereIn('account_id', accountIds)
    .where('requested_at', '>=', since)
    .groupBy('status')
    .select('status', db.raw('count(*) as n'));
  const counts = { pending: 0, delivered: 0, failed: 0, cancelled: 0 };
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}

/** Pending deliveries and when each is due, for the workers' sweep (oldest first). */
export async function pendingDeliveries(
  db: Knex,
  limit: number,
): Promise<Array<{ delivery_id: string; next_attempt_at: Date | null }>> {
  return table(db, DELIVERIES_TABLE)
    .where({ status: 'pending' })
    .orderBy('next_attempt_at')
    .limit(limit)
    .select('delivery_id', 'next_attempt_at');
}
