import { STREAM_TYPES } from '../../domain/stream/types.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { deleteEventRows, expiredEvents } from '../../projections/events/queries.js';

// Retention (spec 8): events are kept one month from receipt. A message's stream goes from the
// store first, then its read-model rows, so a run cut short leaves rows the next run finds again
// (deleting a missing stream is no error). A synthetic row has no stream of its own: its source
// events belong to the mutation receipt, kept by the receipts' own rule. Hourly metrics messages
// (sp-traffic, sp-conversion) are kept by the hour they describe instead: 35 days, longer than a
// month, so the hourly figures of spec 2.12 reach back that far.

/** One month back from `now`, in UTC calendar terms (31 days after 31 January is not March). */
export function retentionCutoff(now: Date): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - 1);
  return cutoff;
}

/**
 * Prunes in batches until one comes back short: `due` finds up to `batch` records past their
 * retention, `remove` takes them out (their streams first, then their rows). How many went.
 */
export async function pruneInBatches<T>(
  batch: number,
  due: (limit: number) => Promise<T[]>,
  remove: (records: T[]) => Promise<void>,
): Promise<number> {
  let pruned = 0;
  for (;;) {
    const records = await due(batch);
    await remove(records);
    pruned += records.length;
    if (records.length < batch) return pruned;
  }
}

/** `days` whole days of 24 hours back from `now` (spec 8's "30 days", "35 days"). */
export function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}

/** Hourly advertising-stream metrics are kept 35 days from the hour they describe (spec 8). */
export const HOURLY_METRICS_DAYS = 35;
const HOURLY_TYPES = STREAM_TYPES.filter((t) => t.scope === 'HourlyMetrics').map((t) => t.code);

/**
 * Prunes every event received over a month before `now`, and every hourly metrics message whose
 * hour is over 35 days before it, in batches; returns how many went.
 */
export async function pruneExpiredEvents(db: Knex, store: EventStore, now: Date, batch = 500): Promise<number> {
  const cutoffs = {
    received: retentionCutoff(now),
    hourly: { types: HOURLY_TYPES, before: daysBefore(now, HOURLY_METRICS_DAYS) },
  };
  let pruned = 0;
  for (;;) {
    const expired = await expiredEvents(db, cutoffs, batch);
    if (expired.length === 0) return pruned;
    for (const { stream } of expired) if (stream !== null) await store.deleteStream(stream);
    await deleteEventRows(
      db,
      expired.map((e) => e.id),
    );
    pruned += expired.length;
  }
}
