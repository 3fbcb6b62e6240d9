import type { Knex } from 'knex';

/** One part of the schema (a table, a view, a role): idempotent, run inside the migration's transaction. */
export type MigrationStep = (trx: Knex.Transaction) => Promise<unknown>;

/**
 * Brings a database to the current schema by running the given steps in order. The caller
 * composes the steps (infra knows no layer above it). Safe to run concurrently from several
 * processes (one advisory lock) and repeatedly.
 */
export async function migrate(db: Knex, steps: readonly MigrationStep[]): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', ['migrate']);
    for (const step of steps) await step(trx);
  });
}
