import type { Knex } from 'knex';
import { comparePositions, type Position } from '../eventstore/port.js';
import { batchLockShared } from './locks.js';
import { READ_MODEL_SCHEMA } from './projection.js';

// One row per projection: the version its live tables were built with and the position of
// the last event they reflect (null = none yet). Positions are numeric: xid8 and
// EventStoreDB positions are unsigned 64-bit, beyond bigint. `stopped_at`: when a projector
// stopped it because an apply failed, until a batch of it is claimed again (a restart).
export const CHECKPOINTS_TABLE = 'projection_checkpoints';
const TABLE = `${READ_MODEL_SCHEMA}.${CHECKPOINTS_TABLE}`;

export interface Checkpoint {
  name: string;
  version: number;
  position: Position | null;
}

interface CheckpointRow {
  name: string;
  version: number;
  commit_position: string | null;
  prepare_position: string | null;
}

export async function createCheckpointsTable(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw(`
    create table if not exists ${TABLE} (
      name text primary key,
      version integer not null,
      commit_position numeric(20, 0),
      prepare_position numeric(20, 0),
      updated_at timestamptz not null default now()
    )`);
  await db.raw(`alter table ${TABLE} add column if not exists stopped_at timestamptz`);
}

/**
 * Marks a projection stopped: a batch's apply failed, and no process applies it until one restarts
 * it. Only while its checkpoint is still where that batch was read from: another process that
 * applied it meanwhile keeps it unmarked.
 */
export async function markStopped(db: Knex, failed: Pick<Claim, 'name' | 'version' | 'from'>): Promise<void> {
  await db.raw(
    `update ${TABLE} set stopped_at = now() where name = ? and version = ?
       and commit_position is not distinct from ? and prepare_position is not distinct from ?`,
    [failed.name, failed.version, ...positionParams(failed.from)],
  );
}

export async function readCheckpoints(db: Knex | Knex.Transaction, name?: string): Promise<Map<string, Checkpoint>> {
  const query = db.select('name', 'version', 'commit_position', 'prepare_position').from(TABLE);
  const rows: CheckpointRow[] = await (name === undefined ? query : query.where({ name }));
  return new Map(
    rows.map((r) => [
      r.name,
      {
        name: r.name,
        version: r.version,
        position:
          r.commit_position === null
            ? null
            : { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position ?? 0) },
      },
    ]),
  );
}

/** One projection's checkpoint (undefined: never migrated). */
export async function readCheckpoint(db: Knex | Knex.Transaction, name: string): Promise<Checkpoint | undefined> {
  return (await readCheckpoints(db, name)).get(name);
}

const positionParams = (p: Position | null) => [p?.commit.toString() ?? null, p?.prepare.toString() ?? null];

/** A batch's move of its projection's checkpoint, from where the batch was read to where it ends. */
export interface Claim {
  name: string;
  version: number;
  from: Position | null;
  to: Position;
}

export type ClaimOutcome = 'claimed' | 'paused' | 'conflict';

/**
 * The claims of batches applied in one transaction, each on its projection, in one statement: the
 * projection's batch lock, shared (a rebuild swapping its tables in holds it exclusive: 'paused',
 * nothing done), then the checkpoint moved from `from` to `to` only if it still is at `from` with
 * `version` ('conflict' otherwise: another process, or a rebuild's swap, moved it; apply nothing).
 * The row locks the moves take serialise concurrent projectors of the same projection; they are
 * taken in the order of the names, so two processes claiming overlapping sets never deadlock.
 *
 * The batches commit without waiting for their WAL flush (synchronous_commit off, this transaction
 * only): rows and checkpoints are one transaction, so a server crash can only lose both together,
 * and the projections apply those events again; waiting for the disk would buy nothing.
 */
export async function claimBatches(
  trx: Knex.Transaction,
  claims: readonly Claim[],
): Promise<Map<string, ClaimOutcome>> {
  const json = claims.map((c) => {
    const [fromCommit, fromPrepare] = positionParams(c.from);
    const [toCommit, toPrepare] = positionParams(c.to);
    return { name: c.name, version: c.version, fromCommit, fromPrepare, toCommit, toPrepare };
  });
  const { rows } = await trx.raw(
    `with claim as materialized (
       select c.*, ${batchLockShared('c.name')} as locked
       from jsonb_to_recordset(?::jsonb) as c(name text, version integer,
         "fromCommit" numeric, "fromPrepare" numeric, "toCommit" numeric, "toPrepare" numeric)),
     held as materialized (
       select t.name from ${TABLE} t join claim c using (name) where c.locked order by t.name for update of t),
     moved as (
       update ${TABLE} t set commit_position = c."toCommit", prepare_position = c."toPrepare", updated_at = now(),
         stopped_at = null
       from claim c
       where t.name = c.name and t.name in (select name from held) and t.version = c.version
         and t.commit_position is not distinct from c."fromCommit" and t.prepare_position is not distinct from c."fromPrepare"
       returning t.name)
     select c.name, c.locked, c.name in (select name from moved) as moved,
       set_config('synchronous_commit', 'off', true) as synchronous_commit
     from claim c`,
    [JSON.stringify(json)],
  );
  return new Map(
    rows.map((r: { name: string; locked: boolean; moved: boolean }) => [
      r.name,
      !r.locked ? 'paused' : r.moved ? 'claimed' : 'conflict',
    ]),
  );
}

export async function setCheckpoint(
  db: Knex | Knex.Transaction,
  name: string,
  version: number,
  position: Position | null,
): Promise<void> {
  await db.raw(
    `insert into ${TABLE} (name, version, commit_position, prepare_position) values (?, ?, ?, ?)
     on conflict (name) do update set version = excluded.version, commit_position = excluded.commit_position,
       prepare_position = excluded.prepare_position, updated_at = now(), stopped_at = null`,
    [name, version, ...positionParams(position)],
  );
}

/** True once projection `name` has applied the log through `position`. */
export async function hasApplied(db: Knex | Knex.Transaction, name: string, position: Position): Promise<boolean> {
  const applied = (await readCheckpoint(db, name))?.position;
  return applied != null && comparePositions(applied, position) >= 0;
}
