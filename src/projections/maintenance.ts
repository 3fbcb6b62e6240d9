import type { Knex } from 'knex';
import type { Logger } from '../infra/logger.js';
import { READ_MODEL_SCHEMA } from './projection.js';

// Planner statistics for the read models. Projections load tables in bulk (a year of orders in
// minutes); until PostgreSQL analyzes them the planner guesses, and the views and read tools
// pick plans thousands of times too slow. Autovacuum does this where it runs, but it can be off
// (it is on some machines) or late, so the projector role analyzes what changed by the same
// rule autovacuum uses: never analyzed and not empty, or more rows changed than 50 + 10 %.

/** ANALYZEs the read-model tables whose statistics are missing or stale, until `signal` aborts; returns their names. */
export async function analyzeStaleTables(
  db: Knex,
  schema: string = READ_MODEL_SCHEMA,
  signal?: AbortSignal,
): Promise<string[]> {
  const { rows }: { rows: { relname: string }[] } = await db.raw(
    `select relname from pg_stat_user_tables
     where schemaname = ?
       and ((last_analyze is null and last_autoanalyze is null and n_live_tup > 0) or n_mod_since_analyze > 50 + 0.1 * n_live_tup)
     order by relname`,
    [schema],
  );
  const analyzed: string[] = [];
  for (const { relname } of rows) {
    if (signal?.aborted) break;
    await db.raw('analyze ??.??', [schema, relname]);
    analyzed.push(relname);
  }
  return analyzed;
}

/** Runs `analyzeStaleTables` every `everyMs` until stopped; a failed round is logged and retried next time. */
export function startTableMaintenance(
  db: Knex,
  logger: Pick<Logger, 'info' | 'warn'>,
  everyMs: number,
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  // a stop waits for the table being analyzed, not the round: the first round after a start may
  // have many tables to do, and a drain has a deadline
  const abort = new AbortController();
  const round = () => {
    running = analyzeStaleTables(db, READ_MODEL_SCHEMA, abort.signal).then(
      (tables) => {
        if (tables.length) logger.info({ tables }, 'analyzed read-model tables');
      },
      (err: unknown) => logger.warn({ err }, 'analyzing read-model tables failed'),
    );
  };
  const timer = setInterval(round, everyMs);
  timer.unref();
  round();
  return {
    async stop() {
      clearInterval(timer);
      abort.abort();
      await running;
    },
  };
}
