import type { Knex } from 'knex';
import type { Idempotency } from '../../domain/mutation/events.js';
import { CREATED_TARGETS_TABLE } from '../admission/projection.js';
import { EVENTS_TABLE, LISTING_RECEIPTS_TABLE } from '../events/projection.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { RECEIPT_EVENTS_TABLE, RECEIPTS_TABLE } from './projection.js';

// Retention of receipts (spec 8): which settled receipts are due, and every read-model row a
// receipt's stream made — its row and history, the entity a creation made (admission), and a
// listing receipt's synthetic events — so that rebuilding from what stays gives the live tables.

/** The settled statuses: the pending ones (queued, submitting, uncertain) are never pruned by age. */
export const SETTLED_STATUSES = ['submitted', 'blocked', 'unresolved'] as const;

export interface ExpiredReceipt {
  id: string;
  idempotency: Idempotency | null;
}

/**
 * Settled receipts whose last answer (submission, blocking, or the reconciliation that settled
 * it) came before `before`, oldest first.
 */
export async function expiredReceipts(db: Knex, before: Date, limit: number): Promise<ExpiredReceipt[]> {
  return db
    .withSchema(READ_MODEL_SCHEMA)
    .table(RECEIPTS_TABLE)
    .whereIn('status', SETTLED_STATUSES)
    .where('recorded_at', '<', before)
    .orderBy('recorded_at')
    .limit(limit)
    .select('id', 'idempotency');
}

/** Deletes every row these receipts' streams made; `before` bounds their synthetic events' times. */
export async function deleteReceiptRows(db: Knex, ids: readonly string[], before: Date): Promise<void> {
  if (ids.length === 0) return;
  const table = (trx: Knex.Transaction, name: string) => trx.withSchema(READ_MODEL_SCHEMA).table(name);
  await db.transaction(async (trx) => {
    await table(trx, RECEIPT_EVENTS_TABLE).whereIn('receipt_id', ids).delete();
    await table(trx, RECEIPTS_TABLE).whereIn('id', ids).delete();
    await table(trx, CREATED_TARGETS_TABLE).whereIn('receipt_id', ids).delete();
    // a synthetic row happened at one of its receipt's answers, all before the receipt's last
    await table(trx, EVENTS_TABLE)
      .where({ synthetic: true })
      .where('received_at', '<', before)
      .whereRaw(`payload->>'receipt_id' = any(?)`, [[...ids]])
      .delete();
    await table(trx, LISTING_RECEIPTS_TABLE).whereIn('receipt_id', ids).delete();
  });
}
