import type { EventStore } from '../../eventstore/index.js';
import {
  flagFrom,
  flagsOf,
  flagStream,
  withheldReason,
  type Withheld,
} from '../../commands/dispatch-control/execute.js';
import {
  readReceipt,
  receiptFrom,
  receiptStream,
  type Receipt,
  type ReceiptStream,
} from '../../commands/mutation/execute.js';
import type { PendingReceipt } from '../../domain/mutation/dispatch-order.js';
import type { QueuedReceipt } from '../../projections/mutations/queries.js';
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
  return receipt && dispatchReceipt(receipt);
}

/** A receipt folded from its stream, as the dispatcher sees it. */
function dispatchReceipt(receipt: Receipt): DispatchReceipt {
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
    id: admitted.receipt_id,
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

/**
 * A target's pending receipts in admission order (the read model's list, and `also`, a receipt
 * it may not show yet), each folded from its stream when first asked for: read a chunk at a time
 * together with the flags that may withhold them (one read of the store), under the target lock,
 * so the flags are as they stand now. A target with a long queue costs a read per chunk, not one
 * per queued receipt.
 */
export class TargetQueue {
  /** the receipts' ids, oldest first */
  readonly order: string[];
  private readonly rows: QueuedReceipt[];
  private readonly read = new Map<string, DispatchReceipt | null>();
  private readonly flags = new Map<string, Promise<boolean>>();

  constructor(
    private readonly store: EventStore,
    private readonly target: { type: string; id: string },
    listed: readonly QueuedReceipt[],
    also: QueuedReceipt,
    private readonly chunk: number,
  ) {
    this.rows = [...listed.filter((r) => r.id !== also.id), also].sort(
      (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
    );
    this.order = this.rows.map((r) => r.id);
  }

  /** The receipt from its stream (null: never admitted), read with the chunk it starts when not read yet. */
  async receipt(id: string): Promise<DispatchReceipt | null> {
    if (!this.read.has(id)) await this.readFrom(this.order.indexOf(id));
    return this.read.get(id) ?? null;
  }

  /** The receipts oldest first, read as far as `enough` needs (the first that may go, or that holds the rest back, settles it). */
  async pending(enough: (prefix: readonly DispatchReceipt[]) => boolean): Promise<DispatchReceipt[]> {
    const loaded: DispatchReceipt[] = [];
    for (const id of this.order) {
      const r = await this.receipt(id);
      if (!r) continue;
      loaded.push(r);
      if (enough(loaded)) break;
    }
    return loaded;
  }

  /** Why `r` must not be sent, or null: on the flags read with it. */
  withheld(r: DispatchReceipt): Promise<Withheld | null> {
    return withheldReason(this.store, r, this.flags);
  }

  private async readFrom(index: number): Promise<void> {
    const rows = this.rows
      .slice(Math.max(0, index), Math.max(0, index) + this.chunk)
      .filter((r) => !this.read.has(r.id));
    const flags = [...new Set(rows.flatMap((r) => flagsOf({ ...r, target: this.target })))].filter(
      (f) => !this.flags.has(f),
    );
    const recorded = await this.store.readStreams([...rows.map((r) => receiptStream(r.id)), ...flags.map(flagStream)]);
    rows.forEach((r, i) => {
      const receipt = receiptFrom(recorded[i]!);
      this.read.set(r.id, receipt && dispatchReceipt(receipt));
    });
    flags.forEach((f, i) => this.flags.set(f, Promise.resolve(flagFrom(recorded[rows.length + i]!))));
  }
}
