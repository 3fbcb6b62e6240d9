import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { deleteStoreRows, expiredStoreWrites } from '../../projections/automation-store/queries.js';
import { storeDecider } from '../../domain/automation-store/decide.js';
import { streamName } from '../shared/handler.js';

// Retention (spec 8): store values are kept 7 days from the write. A run's write-set leaves the log
// once it expired (every value in it expired at the same moment), then its read-model rows; a run
// cut short leaves rows the next run finds again. Rebuilding from what stays gives the live rows:
// the values it would bring back are exactly the unexpired ones.

/** Prunes every write-set expired at `now`, in batches; returns how many went. */
export async function pruneAutomationStore(db: Knex, store: EventStore, now: Date, batch = 500): Promise<number> {
  let pruned = 0;
  for (;;) {
    const expired = await expiredStoreWrites(db, now, batch);
    for (const run_id of expired) await store.deleteStream(streamName(storeDecider.aggregate, run_id));
    await deleteStoreRows(db, expired, now);
    pruned += expired.length;
    if (expired.length < batch) return pruned;
  }
}
