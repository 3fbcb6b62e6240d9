import type { Position } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';

// Where a log-following reactor had got to when one process ran it: one row per reactor. Not a read
// model (a rebuild must never move it back and replay live runs), so it has a schema of its own.
// Partitioned reactors (partitions.ts) keep a checkpoint per partition instead, and start their
// partitions from this row when an earlier release left one.

const SCHEMA = 'reactors';
const TABLE = `${SCHEMA}.checkpoints`;

/** Migration step (src/migrations.ts). */
export async function migrateReactorCheckpoints(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw(`create schema if not exists ${SCHEMA}`);
  await db.raw(`create table if not exists ${TABLE} (
    name text primary key,
    commit_position numeric(20, 0) not null,
    prepare_position numeric(20, 0) not null,
    updated_at timestamptz not null default now())`);
}

export async function readReactorCheckpoint(db: Knex, name: string): Promise<Position | null> {
  const row: { commit_position: string; prepare_position: string } | undefined = await db
    .table(TABLE)
    .where({ name })
    .first('commit_position', 'prepare_position');
  return row ? { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) } : null;
}
