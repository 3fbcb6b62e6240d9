import type { Knex } from 'knex';
import type { TargetType } from '../domain/mutation/payloads.js';
import { receiptsForTargets, type Receipt } from '../projections/mutations/queries.js';

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
