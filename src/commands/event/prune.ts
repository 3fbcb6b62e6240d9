import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { deleteEventRows, expiredEvents } from '../../projections/events/queries.js';

// Retention (spec 8): events are kept one month from receipt. A message's stream goes from the
// store first, then its read-model rows, so a run cut short leaves rows the next run finds again
// (deleting a missing stream is no error). A synthetic row has no stream of its own: its source
// events belong to the mutation receipt, kept by the receipts' own rule.

/** One month back from `now`, in UTC calendar terms (31 days after 31 January is not March). */
export function retentionCutoff(now: Date): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - 1);
  return cutoff;
}

/** Prunes every event received over a month before `now`, in batches; returns how many went. */
export async function pruneExpiredEvents(db: Knex, store: EventStore, now: Date, batch = 500): Promise<number> {
  const before = retentionCutoff(now);
  let pruned = 0;
  for (;;) {
    const expired = await expiredEvents(db, before, batch);
    if (expired.length === 0) return pruned;
    for (const { stream } of expired) if (stream !== null) await store.deleteStream(stream);
    await deleteEventRows(
      db,
      expired.map((e) => e.id),
    );
    pruned += expired.length;
  }
}
