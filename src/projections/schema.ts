import type { Knex } from 'knex';
import { createCheckpointsTable, readCheckpoints, setCheckpoint } from './checkpoints.js';
import { READ_MODEL_SCHEMA, type Projection } from './projection.js';

// A projection's name becomes part of a schema name (`rm_rebuild_<name>`, at most 63 bytes).
const NAME = /^[a-z][a-z0-9_]{0,51}$/;

export function assertProjectionNames(projections: readonly Projection[]): void {
  const seen = new Set<string>();
  for (const p of projections) {
    if (!NAME.test(p.name)) throw new Error(`projection name ${JSON.stringify(p.name)} must match ${NAME}`);
    if (seen.has(p.name)) throw new Error(`projection ${p.name} is registered twice`);
    seen.add(p.name);
  }
}

/**
 * Creates schema `rm`, the checkpoints table and, for each projection never seen before,
 * its live tables at its current version with an empty checkpoint (the projector fills
 * them from position zero). A projection whose code is newer than its checkpoint keeps its
 * old tables here: `rebuildOutdatedProjections` (run by `Projector.start`) replaces them.
 */
export async function migrateProjections(
  db: Knex | Knex.Transaction,
  projections: readonly Projection[],
): Promise<void> {
  assertProjectionNames(projections);
  await db.raw('create schema if not exists ??', [READ_MODEL_SCHEMA]);
  await createCheckpointsTable(db);
  const checkpoints = await readCheckpoints(db);
  for (const p of projections) {
    if (checkpoints.has(p.name)) continue;
    await p.createTables(db, READ_MODEL_SCHEMA);
    await setCheckpoint(db, p.name, p.version, null);
  }
}
