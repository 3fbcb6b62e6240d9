import type { Knex } from 'knex';

// Advisory locks, two-key form so they never collide with single-key locks such as the
// migration's. Per projection: live batches take the transaction lock shared (and skip the
// projection when they can't), a rebuild's swap takes it exclusive. Without it a batch
// holding the checkpoint row and a swap holding the dropped table would deadlock. A whole
// rebuild holds the session lock so two processes never rebuild one projection at once.
const BATCH = 'projection';
const REBUILD = 'projection-rebuild';
const SWAP = 'projection-swap';

/** The SQL that takes a projection's batch lock shared for the transaction, if free (the name as `nameSql`). */
export const batchLockShared = (nameSql: string): string =>
  `pg_try_advisory_xact_lock_shared(hashtext('${BATCH}'), hashtext(${nameSql}))`;

/** Waits for live batches in flight to commit; new ones skip the projection until commit. */
export async function lockProjectionExclusive(trx: Knex.Transaction, name: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?), hashtext(?))', [BATCH, name]);
}

/**
 * Waits for any other rebuild's swap to commit: a swap drops and recreates the views over its
 * tables, and a view may read the tables of two projections, so two swaps at once could each
 * recreate a view over a table the other is dropping (or deadlock on it).
 */
export async function lockSwaps(trx: Knex.Transaction): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?), 0)', [SWAP]);
}

export class RebuildInProgressError extends Error {
  constructor(readonly projection: string) {
    super(`a rebuild of projection ${projection} is already running`);
    this.name = 'RebuildInProgressError';
  }
}

/** Runs `fn` holding the projection's rebuild lock on a connection of its own. */
export async function withRebuildLock<T>(db: Knex, name: string, fn: () => Promise<T>): Promise<T> {
  // knex types its client loosely; acquire/release are its public pool API.
  const client = db.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    const { rows } = await db
      .raw('select pg_try_advisory_lock(hashtext(?), hashtext(?)) as ok', [REBUILD, name])
      .connection(conn);
    if (rows[0].ok !== true) throw new RebuildInProgressError(name);
    try {
      return await fn();
    } finally {
      await db.raw('select pg_advisory_unlock(hashtext(?), hashtext(?))', [REBUILD, name]).connection(conn);
    }
  } finally {
    await client.releaseConnection(conn);
  }
}
