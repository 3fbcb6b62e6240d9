import { idempotencyDecider, idempotencyStreamId } from '../../domain/admission/idempotency.js';
import { mutationDecider } from '../../domain/mutation/decide.js';
import type { Idempotency } from '../../domain/mutation/events.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { deleteReceiptRows, expiredReceipts } from '../../projections/mutations/retention.js';
import { underAdmissionLocks } from '../admission/locks.js';
import { aggregateStream, streamName } from '../shared/handler.js';
import { pruneStreamsPastDays } from '../shared/prune-streams.js';

// Retention (spec 8): listing and ads requests and the provider's answers (all on the receipt's
// stream) are kept 30 days from their last answer; queued, submitting and uncertain receipts are
// never pruned by age, target deleted or not. A receipt's stream leaves the log first, then every
// read-model row it made, so a run cut short leaves rows the next run finds again. The record of
// the idempotency key a pruned receipt was admitted under (the queue_mutations call's input and
// answer: a tool-call record) goes with it.

export const RECEIPT_RETENTION_DAYS = 30;

/** Prunes every settled receipt past its retention at `now`, in batches; returns how many went. */
export async function pruneSettledReceipts(db: Knex, store: EventStore, now: Date, batch = 500): Promise<number> {
  return pruneStreamsPastDays(store, now, RECEIPT_RETENTION_DAYS, batch, {
    due: (before, limit) => expiredReceipts(db, before, limit),
    stream: ({ id }) => streamName(mutationDecider.aggregate, id),
    async remove(expired, before) {
      const keys = new Map(
        expired.flatMap(({ idempotency: k }) => (k ? [[idempotencyStreamId(k.namespace, k.key), k] as const] : [])),
      );
      for (const [id, use] of keys) await pruneKeyRecord(db, store, id, use);
      await deleteReceiptRows(
        db,
        expired.map((r) => r.id),
        before,
      );
    },
  });
}

/**
 * Deletes the key's record if its latest use is the one these receipts were admitted under: a
 * replay could no longer answer (it folds its receipts' streams). A key used again since keeps it.
 * Under the key's admission lock, so no use lands in between.
 */
async function pruneKeyRecord(db: Knex, store: EventStore, id: string, use: Idempotency): Promise<void> {
  const stream = streamName(idempotencyDecider.aggregate, id);
  await underAdmissionLocks(db, [stream], async () => {
    const { used } = (await aggregateStream(store, idempotencyDecider, id)).state;
    if (used && used.fingerprint === use.fingerprint && used.expires_at === use.expires_at)
      await store.deleteStream(stream);
  });
}
