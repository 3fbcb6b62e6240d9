import { automationRunDecider } from '../../domain/automation-run/decide.js';
import { warningSlotDecider, warningSlotId } from '../../domain/automation-run/warning-slot.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { deleteRunRows, expiredRuns } from '../../projections/automation-runs/queries.js';
import { retentionCutoff } from '../event/prune.js';
import { streamName } from '../shared/handler.js';

// Retention (spec 8): automation actions are kept a year from the decision. A run that recorded no
// action is kept as long as the event that caused it (a month). A run's stream leaves the log
// first (with the warning slot it held), then its read-model rows, so a run cut short leaves rows
// the next run finds again.

/** One year back from `now`, in UTC calendar terms. */
export function actionsCutoff(now: Date): Date {
  const cutoff = new Date(now);
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - 1);
  return cutoff;
}

/** Prunes every run past its retention at `now`, in batches; returns how many went. */
export async function pruneAutomationRuns(db: Knex, store: EventStore, now: Date, batch = 500): Promise<number> {
  const cutoffs = { withActions: actionsCutoff(now), withoutActions: retentionCutoff(now) };
  let pruned = 0;
  for (;;) {
    const expired = await expiredRuns(db, cutoffs, batch);
    for (const run of expired) {
      await store.deleteStream(streamName(automationRunDecider.aggregate, run.run_id));
      if (run.warned_on)
        await store.deleteStream(
          streamName(warningSlotDecider.aggregate, warningSlotId(run.automation_id, run.warned_on)),
        );
    }
    await deleteRunRows(
      db,
      expired.map((r) => r.run_id),
    );
    pruned += expired.length;
    if (expired.length < batch) return pruned;
  }
}
