import type { Outcome, Status } from './events.js';
import { isCreation, type Action } from './payloads.js';

// Which request of one target may go to the marketplace next (spec 3.4): one at a time, oldest
// first. The dispatcher asks this under the target's lock, with the target's pending receipts.

export interface PendingReceipt {
  id: string;
  status: Status;
  action: Action;
  outcome: Outcome | null;
  /** dispatches started so far */
  attempts: number;
  /** when the last answer was recorded (a retryable rejection waits its backoff from here) */
  recorded_at: string | null;
}

export type NextStep =
  /** send this one now */
  | { kind: 'send'; receipt_id: string }
  /** found submitting while we hold the lock: its sender died mid-send; it becomes uncertain, never resent */
  | { kind: 'interrupted'; receipt_id: string }
  /** a retryable rejection waiting out its backoff; later requests wait behind it */
  | { kind: 'wait'; receipt_id: string; until: number }
  /** an uncertain non-creation stops later requests for the target */
  | { kind: 'held'; by: string }
  | { kind: 'idle' };

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/** Exponential backoff after the n-th attempt was refused as retryable. */
export const retryDelayMs = (attempts: number, b: Backoff): number =>
  Math.min(b.maxMs, b.baseMs * 2 ** Math.max(0, attempts - 1));

/** `receipts`: the target's receipts oldest first (settled ones are skipped). */
export function nextDispatch(receipts: readonly PendingReceipt[], now: number, backoff: Backoff): NextStep {
  for (const r of receipts) {
    switch (r.status) {
      case 'submitting':
        return { kind: 'interrupted', receipt_id: r.id };
      case 'uncertain':
        // an uncertain creation made (or not) a child; the parent's own requests go on
        if (isCreation(r.action)) continue;
        return { kind: 'held', by: r.id };
      case 'queued': {
        if (r.outcome === 'retryable' && r.recorded_at) {
          const until = Date.parse(r.recorded_at) + retryDelayMs(r.attempts, backoff);
          if (now < until) return { kind: 'wait', receipt_id: r.id, until };
        }
        return { kind: 'send', receipt_id: r.id };
      }
      default:
        continue;
    }
  }
  return { kind: 'idle' };
}
