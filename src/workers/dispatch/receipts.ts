import type { Knex } from 'knex';
import type { EventStore } from '../../eventstore/index.js';
import { readReceipt, type ReceiptStream } from '../../commands/mutation/execute.js';
import type { PendingReceipt } from '../../domain/mutation/dispatch-order.js';
import { pendingOfTargetIds } from '../../projections/mutations/queries.js';
import type { ReceiptToSend } from './requests.js';

// Receipts as the dispatcher sees them: the read model says which receipts a target has
// pending; each one's state comes from its own stream, so a lagging projection can never
// make the dispatcher send a request twice (the state machine refuses a second start anyway).

export interface DispatchReceipt extends PendingReceipt, ReceiptToSend {
  account_id: string;
  created_at: string;
  /** when the latest dispatch started */
  started_at: string | null;
  uncertain_since: string | null;
  /** reconciliation checks so far */
  checks: number;
  /** when the next reconciliation check is due (null: none) */
  next_check_at: string | null;
  /** the named part of the target read before the latest send (undefined: not read) */
  prior?: unknown;
  /** the receipts whose patches shared the latest send, in order (empty: sent alone) */
  sent_with: string[];
  /** the stream as read: the next command is decided on it without reading it again */
  known: ReceiptStream;
}

export async function loadReceipt(store: EventStore, id: string): Promise<DispatchReceipt | null> {
  const receipt = await readReceipt(store, id);
  if (!receipt) return null;
  const { admitted, state, events } = receipt;
  let recorded_at: string | null = null;
  let started_at: string | null = null;
  let prior: { prior?: unknown } = {};
  let sent_with: string[] = [];
  for (const event of events) {
    if (event.type === 'MutationDispatchStarted') {
      started_at = event.data.started_at;
      prior = 'prior' in event.data ? { prior: event.data.prior } : {};
      sent_with = event.data.sent_with ?? [];
    }
    if ('recorded_at' in event.data) recorded_at = event.data.recorded_at;
  }
  return {
    id,
    status: state.status!,
    outcome: state.outcome,
    action: admitted.action,
    attempts: state.attempts,
    recorded_at,
    target: admitted.target,
    payload: admitted.payload,
    provider: admitted.provider,
    account_id: admitted.account_id,
    created_at: admitted.created_at,
    started_at,
    uncertain_since: state.uncertain_since,
    checks: state.reconciliation?.attempts ?? 0,
    next_check_at: state.reconciliation?.nextAt ?? null,
    ...prior,
    sent_with,
    known: receipt,
  };
}

/** A target's pending receipts as far as they were loaded, and the ids of all it has pending, in order. */
export interface TargetQueue {
  loaded: DispatchReceipt[];
  order: string[];
}

/**
 * The target's pending receipts oldest first, each folded from its stream, loaded only as far as
 * `enough` needs (the first request that may go, or that holds the rest back, settles it): a
 * target with a long queue costs a few stream reads per send, not one per queued receipt.
 * `also` is a receipt the read model may not show yet.
 */
export async function pendingOfTarget(
  db: Knex,
  store: EventStore,
  target: { type: string; id: string },
  also: Pick<DispatchReceipt, 'id' | 'created_at'>,
  enough: (prefix: readonly DispatchReceipt[]) => boolean,
): Promise<TargetQueue> {
  const order = (await pendingOfTargetIds(db, target)).filter((r) => r.id !== also.id);
  order.push({ id: also.id, created_at: also.created_at });
  order.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const loaded: DispatchReceipt[] = [];
  for (const { id } of order) {
    const r = await loadReceipt(store, id);
    if (!r) continue;
    loaded.push(r);
    if (enough(loaded)) break;
  }
  return { loaded, order: order.map((r) => r.id) };
}
