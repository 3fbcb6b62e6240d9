import { idempotencyDecider, idempotencyStreamId } from '../domain/admission/idempotency.js';
import { mutationDecider } from '../domain/mutation/decide.js';
import type { EventStore } from '../eventstore/port.js';
import type { Knex } from '../infra/db.js';
import { deleteReceiptRows, expiredReceipts } from '../projections/mutations/retention.js';
import { underAdmissionLocks } from './admission-locks.js';
import { daysBefore, retentionCutoff } from './event/prune.js';
import { aggregateStream, streamName } from './handler.js';

// Retention (spec 8): listing and ads requests and the provider's answers (all on the receipt's
// stream) are kept 30 days from their last answer; queued, submitting and uncertain receipts are
// never pruned by age, target deleted or not. A receipt's stream leaves the log first, then every
// read-model row it made, so a run cut short leaves rows the next run finds again. The idempotency
// key a pruned receipt was admitted under (a record of the queue_mutations call, spec 8: a month
// from the call) goes with it once its latest use is over a month old.

export const RECEIPT_RETENTION_DAYS = 30;

/** Prunes every settled receipt past its retention at `now`, in batches; returns how many went. */
export async function pruneSettledReceipts(db: Knex, store: EventStore, now: Date, batch = 500): Promise<number> {
  const before = daysBefore(now, RECEIPT_RETENTION_DAYS);
  let pruned = 0;
  for (;;) {
    const expired = await expiredReceipts(db, before, batch);
    for (const { id } of expired) await store.deleteStream(streamName(mutationDecider.aggregate, id));
    const keys = new Set(expired.flatMap(({ idempotency: k }) => (k ? [idempotencyStreamId(k.namespace, k.key)] : [])));
    for (const id of keys) await pruneKeyRecord(db, store, id, retentionCutoff(now));
    await deleteReceiptRows(
      db,
      expired.map((r) => r.id),
      before,
    );
    pruned += expired.length;
    if (expired.length < batch) return pruned;
  }
}

/** Deletes the key's record if its latest use expired before `before`, under the key's admission lock. */
async function pruneKeyRecord(db: Knex, store: EventStore, id: string, before: Date): Promise<void> {
  const stream = streamName(idempotencyDecider.aggregate, id);
  await underAdmissionLocks(db, [stream], async () => {
    const { state } = await aggregateStream(store, idempotencyDecider, id);
    // a key used again since keeps its record: the recent use is another call's
    if (state.used && Date.parse(state.used.expires_at) < before.getTime()) await store.deleteStream(stream);
  });
}
