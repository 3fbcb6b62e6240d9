import type { EventStore } from '../../eventstore/port.js';
import { daysBefore, pruneInBatches } from '../event/prune.js';

/** How one kind of record is pruned: what is due, the stream each record has, what else goes. */
export interface StreamPrune<T> {
  /** up to `limit` records older than `before` */
  due: (before: Date, limit: number) => Promise<T[]>;
  stream: (record: T) => string;
  /** runs once the records' streams left the log: their rows, and whatever else goes with them */
  remove: (records: T[], before: Date) => Promise<void>;
}

/**
 * Prunes, in batches, the records kept `days` days (spec 8) that are past it at `now`: each
 * record's stream leaves the log first, then `remove` takes the rest, so a run cut short leaves
 * rows the next run finds again. How many went.
 */
export async function pruneStreamsPastDays<T>(
  store: EventStore,
  now: Date,
  days: number,
  batch: number,
  prune: StreamPrune<T>,
): Promise<number> {
  const before = daysBefore(now, days);
  return pruneInBatches(
    batch,
    (limit) => prune.due(before, limit),
    async (records) => {
      for (const record of records) await store.deleteStream(prune.stream(record));
      await prune.remove(records, before);
    },
  );
}
