import type { Knex } from 'knex';
import { z } from 'zod';
import type { TargetType } from '../domain/mutation/payloads.js';
import { receiptSchema, receiptsForTargets, type Receipt } from '../projections/mutations/queries.js';

/**
 * The `mutations` of a read-tool row as its output schema states them (what withMutations adds).
 * The receipt has an id, so a listing states it once (under `definitions`) however many rows name it.
 */
export const rowMutations = z
  .array(receiptSchema.meta({ id: 'MutationReceipt' }))
  .describe(
    "this target's queued, submitting and uncertain requests plus the latest settled one, oldest first, each with its immutable payload and raw response; a creation's receipt sits on its parent",
  );

/**
 * The `mutations` of read-tool rows (spec 2.5, 2.7, 2.8): every queued, submitting or uncertain
 * receipt of the row's target plus the latest settled one, oldest first; a creation's receipt
 * sits on its parent. One query for the whole page.
 */
export async function withMutations<T extends { id: string }>(
  db: Knex,
  type: TargetType,
  rows: readonly T[],
): Promise<Array<T & { mutations: Receipt[] }>> {
  const receipts = await receiptsForTargets(
    db,
    type,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, mutations: receipts.get(r.id) ?? [] }));
}
