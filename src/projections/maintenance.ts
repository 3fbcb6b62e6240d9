import type pg from 'pg';
import type { Knex } from 'knex';
import type { Logger } from '../infra/logger.js';
import { READ_MODEL_SCHEMA } from './projection.js';

// Vacuum and planner statistics for the read models, by autovacuum's own rules. Projections load
// tables in bulk (a year of orders in minutes) and restate pages (a delete per insert); autovacuum
// does the upkeep where it runs, but it can be off (it is off on some machines) or late, and then:
// - without statistics the planner guesses, and the views and read tools pick plans thousands of
//   times too slow;
// - without a vacuum the visibility map stays empty, so every index-only scan (the sales reads
//   sum their lines from an index) visits the heap for each row, and dead rows pile up.
// So the projector role vacuums a table once 50 + 20 % of its rows are dead or 1,000 + 20 % were
// inserted since its last vacuum, and analyzes one never analyzed and not empty, or with more
// than 50 + 10 % of its rows changed.

export interface MaintainedTables {
  vacuumed: string[];
  analyzed: string[];
}

/** VACUUMs and ANALYZEs the read-model tables that autovacuum would, until `signal` aborts. */
export async function maintainTables(
  db: Knex,
  schema: string = READ_MODEL_SCHEMA,
  signal?: AbortSignal,
): Promise<MaintainedTables> {
  const { rows }: { rows: { relname: string; vacuum: boolean; analyze: boolean }[] } = await db.raw(
    `select s.relname,
       coalesce(s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
         or s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0), false) as vacuum,
       coalesce((s.last_analyze is null and s.last_autoanalyze is null and s.n_live_tup > 0)
         or s.n_mod_since_analyze > 50 + 0.1 * s.n_live_tup, false) as analyze
     from pg_stat_user_tables s join pg_class c on c.oid = s.relid
     where s.schemaname = ?
     order by s.relname`,
    [schema],
  );
  const done: MaintainedTables = { vacuumed: [], analyzed: [] };
  for (const { relname, vacuum, analyze } of rows) {
    if (signal?.aborted) break;
    if (!vacuum && !analyze) continue;
    const sql = vacuum ? `vacuum${analyze ? ' (analyze)' : ''} ??.??` : 'analyze ??.??';
    try {
      await cancellable(db, signal, (conn) => db.raw(sql, [schema, relname]).connection(conn));
    } catch (err) {
      if (signal?.aborted) break;
      // dropped since the statistics were read (a rebuild's swap): nothing to maintain
      if ((err as { code?: string }).code === UNDEFINED_TABLE) continue;
      throw err;
    }
    if (vacuum) done.vacuumed.push(relname);
    if (analyze) done.analyzed.push(relname);
  }
  return done;
}

const UNDEFINED_TABLE = '42P01';

/** Runs `fn` on a connection of its own that an abort of `signal` cancels (a VACUUM of a large
 * table takes longer than a drain may wait), through a second connection of the pool. */
async function cancellable<T>(
  db: Knex,
  signal: AbortSignal | undefined,
  fn: (conn: pg.Client) => Promise<T>,
): Promise<T> {
  type Conn = pg.Client & { processID: number }; // the backend's pid: pg sets it, its types leave it out
  const pool = db.client as { acquireConnection(): Promise<Conn>; releaseConnection(c: Conn): Promise<void> };
  const conn = await pool.acquireConnection();
  const cancel = () => void db.raw('select pg_cancel_backend(?)', [conn.processID]).catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    // aborted while the connection was acquired: the listener would never hear it
    signal?.throwIfAborted();
    return await fn(conn);
  } finally {
    signal?.removeEventListener('abort', cancel);
    await pool.releaseConnection(conn);
  }
}

/** Runs `maintainTables` every `everyMs` until stopped; a failed round is logged and retried next time. */
export function startTableMaintenance(
  db: Knex,
  logger: Pick<Logger, 'info' | 'warn'>,
  everyMs: number,
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  // a stop cancels the statement running and skips the rest of the round: the first round after a
  // start may have many tables to do, a VACUUM of a bulk-loaded one takes a while, and a drain has
  // a deadline
  const abort = new AbortController();
  const round = () => {
    running = maintainTables(db, READ_MODEL_SCHEMA, abort.signal).then(
      (done) => {
        if (done.vacuumed.length || done.analyzed.length) logger.info(done, 'maintained read-model tables');
      },
      (err: unknown) => logger.warn({ err }, 'maintaining read-model tables failed'),
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
