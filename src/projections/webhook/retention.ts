import type { Knex } from '../../infra/db.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { ATTEMPTS_TABLE, DELIVERIES_TABLE } from './deliveries.js';

// Retention of webhook deliveries (spec 8: 30 days from the attempt): a finished delivery is due
// 30 days after its last activity (its last attempt, or the request when none was made). A pending
// one is never due: it still has an attempt to come.

/** Finished deliveries whose last activity came before `before`, oldest first. */
export async function expiredDeliveries(db: Knex, before: Date, limit: number): Promise<string[]> {
  const rows: { delivery_id: string }[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table(DELIVERIES_TABLE)
    .whereNot({ status: 'pending' })
    .where('last_activity_at', '<', before)
    .orderBy('last_activity_at')
    .limit(limit)
    .select('delivery_id');
  return rows.map((r) => r.delivery_id);
}

export async function deleteDeliveryRows(db: Knex, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.transaction(async (trx) => {
    await trx.withSchema(READ_MODEL_SCHEMA).table(ATTEMPTS_TABLE).whereIn('delivery_id', ids).delete();
    await trx.withSchema(READ_MODEL_SCHEMA).table(DELIVERIES_TABLE).whereIn('delivery_id', ids).delete();
  });
}
