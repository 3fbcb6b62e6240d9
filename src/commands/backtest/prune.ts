import { backtestDecider } from '../../domain/backtest/decide.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { deleteBacktestRows, expiredBacktests } from '../../projections/backtests/queries.js';
import { streamName } from '../shared/handler.js';
import { pruneStreamsPastDays } from '../shared/prune-streams.js';

// Retention of backtests (docs/decisions/120-backtests.md): a backtest's stream, with its result,
// is kept 30 days from its end (from its request when it never ended: a worker lost before it
// could record one), as long as the events it replayed. The stream leaves the log first, then its
// row, so a run cut short leaves rows the next run finds again.

export const BACKTEST_RETENTION_DAYS = 30;

/** Prunes every backtest past its retention at `now`, in batches; returns how many went. */
export function pruneBacktests(db: Knex, store: EventStore, now: Date, batch = 500): Promise<number> {
  return pruneStreamsPastDays(store, now, BACKTEST_RETENTION_DAYS, batch, {
    due: (before, limit) => expiredBacktests(db, before, limit),
    stream: (id) => streamName(backtestDecider.aggregate, id),
    remove: (ids) => deleteBacktestRows(db, ids),
  });
}
