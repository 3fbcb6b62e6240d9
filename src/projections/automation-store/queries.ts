import type { Knex } from 'knex';
import { prepared } from '../../infra/db.js';
import type { StoreUsage } from '../../domain/automation-store/decide.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { STORE_TABLES } from './projection.js';

// Reads of the automation store. A value past its `expires_at` reads as missing at once, whether
// or not the retention prune has removed it yet.

const values = (db: Knex) => db.withSchema(READ_MODEL_SCHEMA).table(STORE_TABLES.values);
const live = (db: Knex, automation_id: string, now: Date) =>
  values(db).where({ automation_id }).where('expires_at', '>', now);

/**
 * The automation's unexpired values, for `context.store` of a live run (a dry run gets `{}`).
 * It reads the read model: a runner that needs its previous run's writes waits for the projector
 * to pass the position `applyStoreEffects` returned.
 */
export async function loadStoreSnapshot(
  db: Knex,
  automationId: string,
  now: Date = new Date(),
): Promise<Record<string, unknown>> {
  return storeSnapshotOf(await prepared<unknown[]>(() => storeSnapshotQuery(db, automationId, now)));
}

/** loadStoreSnapshot's query: rows of `{ key, value_json }` (readTogether takes it beside others). */
export const storeSnapshotQuery = (db: Knex, automationId: string, now: Date) =>
  live(db, automationId, now).orderBy('key').select('key', 'value_json');

export const storeSnapshotOf = (rows: readonly unknown[]): Record<string, unknown> =>
  Object.fromEntries(
    (rows as Array<{ key: string; value_json: string }>).map((r) => [r.key, JSON.parse(r.value_json) as unknown]),
  );

/** What the store holds at `now`: its totals and the bytes each of `keys` holds. */
export async function storeUsage(
  db: Knex,
  automationId: string,
  keys: readonly string[],
  now: Date,
): Promise<StoreUsage> {
  const [totals] = (await live(db, automationId, now).select(
    db.raw('count(*)::int as keys'),
    db.raw('coalesce(sum(bytes), 0)::int as bytes'),
  )) as { keys: number; bytes: number }[];
  const held: { key: string; bytes: number }[] =
    keys.length === 0 ? [] : await live(db, automationId, now).whereIn('key', keys).select('key', 'bytes');
  return { keys: totals!.keys, bytes: totals!.bytes, held: new Map(held.map((h) => [h.key, h.bytes])) };
}

/** Runs whose writes had all expired at `now`, oldest first. */
export async function expiredStoreWrites(db: Knex, now: Date, limit: number): Promise<string[]> {
  const rows: { run_id: string }[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table(STORE_TABLES.writes)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .select('run_id');
  return rows.map((r) => r.run_id);
}

/** Removes these write-sets' rows and every value expired at `now`. */
export async function deleteStoreRows(db: Knex, runIds: readonly string[], now: Date): Promise<void> {
  await db.transaction(async (trx) => {
    if (runIds.length > 0)
      await trx.withSchema(READ_MODEL_SCHEMA).table(STORE_TABLES.writes).whereIn('run_id', runIds).delete();
    await trx.withSchema(READ_MODEL_SCHEMA).table(STORE_TABLES.values).where('expires_at', '<=', now).delete();
  });
}
