import type { Knex } from 'knex';
import type { Logger } from '../infra/logger.js';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.js';
import { applyEvents } from './apply.js';
import { readCheckpoints, setCheckpoint } from './checkpoints.js';
import { dropDependentViews, recreateViews } from './dependent-views.js';
import { lockProjectionExclusive, lockSwaps, RebuildInProgressError, withRebuildLock } from './locks.js';
import { READ_MODEL_SCHEMA, readFor, type Projection } from './projection.js';
import { assertProjectionNames } from './schema.js';

export interface BuildOptions {
  batchSize?: number;
  /** called after each batch with the number of events read so far */
  onProgress?: (eventsRead: number) => void;
  /** events applied before the fresh tables are first analyzed (default 1,000; again each time they double) */
  analyzeAfter?: number;
  signal?: AbortSignal;
}

export interface RebuildOptions extends BuildOptions {
  logger?: Logger;
}

const DEFAULT_BATCH_SIZE = 1000;
const ANALYZE_AFTER = 1_000;

export const rebuildSchemaName = (projection: string) => `rm_rebuild_${projection}`;

/**
 * Creates `schema` afresh with the projection's tables and applies the log from position
 * zero up to `until` (inclusive; the end of the log when absent), one transaction per batch.
 * Returns the position of the last event read.
 */
export async function buildInto(
  db: Knex,
  store: EventStore,
  projection: Projection,
  schema: string,
  options: BuildOptions & { until?: Position | null } = {},
): Promise<{ position: Position | null; eventsRead: number }> {
  await db.raw('drop schema if exists ?? cascade', [schema]);
  await db.raw('create schema ??', [schema]);
  await projection.createTables(db, schema);
  const until = options.until;
  if (until === null) return { position: null, eventsRead: 0 };
  const limit = options.batchSize ?? DEFAULT_BATCH_SIZE;
  let position: Position | null = null;
  let eventsRead = 0;
  let applied = 0;
  let analyzeAt = options.analyzeAfter ?? ANALYZE_AFTER;
  for await (const read of aheadByOne(readsOf(store, projection, null, limit, until))) {
    options.signal?.throwIfAborted();
    if (read.events.length > 0) await db.transaction((trx) => applyEvents(trx, projection, read.events, schema));
    // Fresh tables have no statistics (and autovacuum may be off): without them the planner took a
    // scope's whole index range for each page's few rows, and a rebuild slowed as its tables grew.
    // Analyzed each time the events applied doubled: about 15 times on the way to a million.
    applied += read.events.length;
    if (applied >= analyzeAt) {
      for (const table of projection.tables) await db.raw('analyze ??.??', [schema, table]);
      analyzeAt = applied * 2;
    }
    position = read.through;
    eventsRead += read.passed;
    options.onProgress?.(eventsRead);
  }
  return { position, eventsRead };
}

/**
 * The projection's events after `after` (up to `until`, inclusive), a read at a time, each with
 * where it read to and how many events of the log it went past: only the projection's types
 * and filter are loaded, so a rebuild of one read model does not load every payload of the log.
 */
async function* readsOf(
  store: EventStore,
  projection: Projection,
  after: Position | null,
  limit: number,
  until?: Position,
): AsyncGenerator<{ events: RecordedEvent[]; through: Position; passed: number }> {
  for (;;) {
    const read = await readFor(store, projection, after, { limit });
    const { through } = read;
    if (through === null || (after !== null && comparePositions(through, after) <= 0)) return;
    if (until && comparePositions(through, until) > 0) {
      const events = read.events.filter((e) => comparePositions(e.position, until) <= 0);
      if (after === null || comparePositions(until, after) > 0) yield { events, through: until, passed: read.passed };
      return;
    }
    yield { events: read.events, through, passed: read.passed };
    after = through;
  }
}

/**
 * The reads of `source` one ahead: the next is read (the database finding and sending the
 * events, this process parsing them) while the current one is applied, so each side works while
 * the other waits instead of taking turns. A read that fails surfaces when it is reached.
 */
async function* aheadByOne<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = source.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = source.next();
      next.catch(() => undefined);
      yield current.value;
    }
  } finally {
    await source.return(undefined);
  }
}

/**
 * Rebuilds a projection from position zero into `rm_rebuild_<name>` while the live
 * projector keeps running, then swaps it in, in one transaction: it pauses live batches of
 * this projection, applies the events appended meanwhile, replaces the live tables (views
 * over them are recreated) and sets the checkpoint to the rebuilt position and version.
 */
export async function rebuildProjection(
  db: Knex,
  store: EventStore,
  projection: Projection,
  options: RebuildOptions = {},
): Promise<{ eventsRead: number }> {
  assertProjectionNames([projection]);
  return withRebuildLock(db, projection.name, () => rebuildLocked(db, store, projection, options));
}

async function rebuildLocked(
  db: Knex,
  store: EventStore,
  projection: Projection,
  options: RebuildOptions,
): Promise<{ eventsRead: number }> {
  const schema = rebuildSchemaName(projection.name);
  const started = Date.now();
  options.logger?.info({ projection: projection.name, version: projection.version }, 'rebuild started');
  try {
    return await buildAndSwap(db, store, projection, schema, options, started);
  } catch (err) {
    // a rebuild cut short gives back the disk its copy of the tables took, not at the next attempt
    await db.raw('drop schema if exists ?? cascade', [schema]).catch(() => undefined);
    throw err;
  }
}

async function buildAndSwap(
  db: Knex,
  store: EventStore,
  projection: Projection,
  schema: string,
  options: RebuildOptions,
  started: number,
): Promise<{ eventsRead: number }> {
  let { position, eventsRead } = await buildInto(db, store, projection, schema, options);
  await compactTables(db, schema, projection.tables);
  const limit = options.batchSize ?? DEFAULT_BATCH_SIZE;
  await db.transaction(async (trx) => {
    await lockSwaps(trx);
    await lockProjectionExclusive(trx, projection.name);
    for await (const read of readsOf(store, projection, position, limit)) {
      await applyEvents(trx, projection, read.events, schema);
      position = read.through;
      eventsRead += read.passed;
      options.onProgress?.(eventsRead);
    }
    await swapTables(trx, projection, schema);
    await setCheckpoint(trx, projection.name, projection.version, position);
  });
  options.logger?.info(
    { projection: projection.name, version: projection.version, eventsRead, ms: Date.now() - started },
    'rebuild swapped in',
  );
  return { eventsRead };
}

/** The share of dead row versions (updates and deletes against the rows left) past which a rebuilt table is rewritten. */
const REWRITE_DEAD_SHARE = 0.2;

/**
 * Gives the rebuilt tables their statistics and visibility map, and rewrites compactly those the
 * build left full of dead versions: a rebuild writes some rows many times (a rollup once per
 * batch), and the reads after the swap would otherwise scan the dead versions and guess their
 * plans until (auto)vacuum ran, which is off on some machines. A table only inserted into (a year
 * of order lines) is not rewritten: VACUUM FULL copied a gigabyte for nothing. The counts are the
 * statistics system's (fresh tables, so they are the build's own; a pooled connection may hold up
 * to its last 10 s unflushed, which only matters near the threshold). Rows changed, not dead
 * versions found (as table maintenance counts): the rule is about the build's churn. Nobody reads
 * the rebuild schema yet, so VACUUM FULL's lock holds no one up.
 */
export async function compactTables(db: Knex, schema: string, tables: readonly string[]): Promise<void> {
  for (const t of tables) {
    const { rows } = await db.raw(
      `select coalesce(n_tup_upd + n_tup_del > ?::float8 * greatest(n_live_tup, 1), false) as rewrite
         from pg_stat_user_tables where schemaname = ? and relname = ?`,
      [REWRITE_DEAD_SHARE, schema, t],
    );
    if (rows[0]?.rewrite) await db.raw('vacuum full ??.??', [schema, t]);
    await db.raw('vacuum analyze ??.??', [schema, t]);
  }
}

async function swapTables(trx: Knex.Transaction, projection: Projection, schema: string): Promise<void> {
  const live = projection.tables.map((t) => `${READ_MODEL_SCHEMA}.${t}`);
  const existing = (
    await trx.raw('select t from unnest(?::text[]) t where to_regclass(t) is not null', [live])
  ).rows.map((r: { t: string }) => r.t);
  const views = await dropDependentViews(trx, existing);
  // one statement: a table may reference another of the projection's (a foreign key)
  await trx.raw(`drop table if exists ${projection.tables.map(() => '??.??').join(', ')}`, [
    ...projection.tables.flatMap((t) => [READ_MODEL_SCHEMA, t]),
  ]);
  for (const t of projection.tables) await trx.raw('alter table ??.?? set schema ??', [schema, t, READ_MODEL_SCHEMA]);
  // No cascade: anything left behind (a type, a table not in `tables`) is a projection bug.
  await trx.raw('drop schema ??', [schema]);
  await recreateViews(trx, views);
}

/**
 * Rebuilds every projection whose checkpoint is missing or older than its code's version.
 * A projection another process is already rebuilding is left to that process.
 */
export async function rebuildOutdatedProjections(
  db: Knex,
  store: EventStore,
  projections: readonly Projection[],
  options: RebuildOptions & {
    /** after each projection is swapped in (views over its new tables, say); its failure is logged */
    onRebuilt?: (name: string) => Promise<void>;
  } = {},
): Promise<string[]> {
  assertProjectionNames(projections);
  const outdated = async (p: Projection) => {
    const cp = (await readCheckpoints(db)).get(p.name);
    return cp === undefined || cp.version < p.version;
  };
  const rebuilt: string[] = [];
  for (const p of projections) {
    if (!(await outdated(p))) continue;
    try {
      // Checked again under the lock: another process may have just finished it.
      const done = await withRebuildLock(db, p.name, async () => {
        if (!(await outdated(p))) return false;
        await rebuildLocked(db, store, p, options);
        return true;
      });
      if (done) {
        rebuilt.push(p.name);
        await options
          .onRebuilt?.(p.name)
          .catch((err: unknown) =>
            options.logger?.error({ err, projection: p.name }, 'rebuilt, but what follows a rebuild failed'),
          );
      }
    } catch (err) {
      if (!(err instanceof RebuildInProgressError)) throw err;
      options.logger?.info({ projection: p.name }, 'rebuild left to the process already running it');
    }
  }
  return rebuilt;
}
