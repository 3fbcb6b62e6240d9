import type { Knex } from 'knex';
import type { MutationEventOf } from '../../domain/mutation/events.js';
import type { RevertSource } from '../../domain/revert/plan.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { RECEIPT_EVENTS_TABLE, RECEIPTS_TABLE } from './projection.js';
import type { ReceiptRow } from './queries.js';

// The receipts a revert names (docs/decisions/125-revert.md), each with what it needs: the value
// it replaced (`prior` of its latest MutationDispatchStarted), when it was applied (an observation
// of its target counts only if made later), and the receipt reverting it already, if any (queued
// or applied: a blocked, refused or absent revert undid nothing).

/** Which receipts: by id, an automation's applied changes since an instant, or those admitted with the caller's key. */
export type RevertSelection =
  | { receipt_ids: readonly string[] }
  | { automation_id: string; since: Date }
  | { idempotency: { namespace: string; key: string } };

type Row = Pick<
  ReceiptRow,
  | 'id'
  | 'account_id'
  | 'target_type'
  | 'target_id'
  | 'action'
  | 'status'
  | 'outcome'
  | 'created'
  | 'created_at'
  | 'recorded_at'
> & {
  payload: Record<string, unknown>;
  provider: Record<string, string>;
  started: MutationEventOf<'MutationDispatchStarted'>['data'] | null;
  reverted_by: string | null;
};

/** A receipt to revert, with what admission and the target's live read need. */
export type RevertRow = RevertSource & { account_id: string; provider: Record<string, string> };

/** The selected receipts of these accounts, oldest first, at most `limit`. */
export async function revertSources(
  db: Knex,
  accountIds: readonly string[],
  selection: RevertSelection,
  limit: number,
): Promise<RevertRow[]> {
  if (accountIds.length === 0) return [];
  const q = db
    .withSchema(READ_MODEL_SCHEMA)
    .from(`${RECEIPTS_TABLE} as r`)
    .whereIn('r.account_id', accountIds)
    .select(
      'r.id',
      'r.account_id',
      'r.target_type',
      'r.target_id',
      'r.action',
      'r.payload',
      'r.provider',
      'r.status',
      'r.outcome',
      'r.created',
      'r.created_at',
      'r.recorded_at',
      db.raw(
        `(select e.data from ??.?? e where e.receipt_id = r.id and e.type = 'MutationDispatchStarted' order by e.revision desc limit 1) as started`,
        [READ_MODEL_SCHEMA, RECEIPT_EVENTS_TABLE],
      ),
      db.raw(
        `(select v.id from ??.?? v where v.caused_by->>'reverts' = r.id::text and v.status <> 'blocked'
          and v.outcome is distinct from 'rejected' and v.outcome is distinct from 'absent'
          order by v.created_at desc limit 1) as reverted_by`,
        [READ_MODEL_SCHEMA, RECEIPTS_TABLE],
      ),
    )
    .orderBy([{ column: 'r.created_at' }, { column: 'r.id' }])
    .limit(limit);
  if ('receipt_ids' in selection) q.whereIn('r.id', [...selection.receipt_ids]);
  else if ('automation_id' in selection)
    q.whereRaw(`r.caused_by->>'automation_id' = ?`, [selection.automation_id])
      .where('r.created_at', '>=', selection.since)
      .where({ 'r.status': 'submitted', 'r.outcome': 'accepted' });
  else
    q.where({
      'r.idempotency_namespace': selection.idempotency.namespace,
      'r.idempotency_key': selection.idempotency.key,
    });
  const rows: Row[] = await q;
  return rows.map((r) => ({
    id: r.id,
    account_id: r.account_id,
    target: { type: r.target_type, id: r.target_id },
    action: r.action,
    payload: r.payload,
    provider: r.provider,
    status: r.status,
    outcome: r.outcome,
    created: r.created,
    created_at: r.created_at.toISOString(),
    applied_at: r.status === 'submitted' && r.outcome === 'accepted' ? (r.recorded_at?.toISOString() ?? null) : null,
    ...(r.started && 'prior' in r.started ? { prior: r.started.prior } : {}),
    reverted_by: r.reverted_by,
  }));
}
