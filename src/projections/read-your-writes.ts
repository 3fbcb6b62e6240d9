import type { Knex } from 'knex';
import { comparePositions, type Position } from '../eventstore/port.js';
import type { Appended } from '../eventstore/reporting.js';
import { CHECKPOINTS_TABLE } from './checkpoints.js';
import { READ_MODEL_SCHEMA, wants, type Projection } from './projection.js';
import { projections as registered } from './registry.js';

// Read-your-writes (docs/decisions/084-read-your-writes.md): for each user, the furthest position
// each projection must reach to show that user's own writes. Kept per projection, so a read
// waits only for the read models the user's writes touched, never for a projection busy with
// other data, and nobody waits on another user's writes. Not a read model (a rebuild must not
// forget it), so it lives in a schema of its own.

const SCHEMA = 'callers';
const TABLE = `${SCHEMA}.writes`;

/** Migration step (src/migrations.ts). */
export async function migrateReadYourWrites(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw(`create schema if not exists ${SCHEMA}`);
  await db.raw(`create table if not exists ${TABLE} (
    user_id text not null,
    projection text not null,
    commit_position numeric(20, 0) not null,
    prepare_position numeric(20, 0) not null,
    primary key (user_id, projection))`);
}

/** The projections that apply these events (by type and filter), each with the furthest position it must reach. */
export function projectionsToReach(
  events: readonly Appended[],
  projections: readonly Projection[] = registered,
): Map<string, Position> {
  const reach = new Map<string, Position>();
  for (const e of events)
    for (const p of projections) {
      if (!wants(p, e)) continue;
      const known = reach.get(p.name);
      if (!known || comparePositions(known, e.position) < 0) reach.set(p.name, e.position);
    }
  return reach;
}

/** Remembers what the user's reads must wait for; a position behind one already kept changes nothing. */
export async function rememberWrites(db: Knex, userId: string, reach: ReadonlyMap<string, Position>): Promise<void> {
  if (reach.size === 0) return;
  const rows = [...reach].map(([projection, p]) => ({
    user_id: userId,
    projection,
    commit_position: p.commit.toString(),
    prepare_position: p.prepare.toString(),
  }));
  await db.raw(
    `insert into ${TABLE} as w (user_id, projection, commit_position, prepare_position)
     select * from jsonb_to_recordset(?::jsonb) as r(user_id text, projection text, commit_position numeric, prepare_position numeric)
     on conflict (user_id, projection) do update
       set commit_position = excluded.commit_position, prepare_position = excluded.prepare_position
       where (w.commit_position, w.prepare_position) < (excluded.commit_position, excluded.prepare_position)`,
    [JSON.stringify(rows)],
  );
}

/** Projections behind a user's writes; `stopped` those of them a failed apply stopped (no use waiting). */
export interface Behind {
  behind: string[];
  stopped: string[];
}

/**
 * The projections that have not yet applied the user's last write to them (one statement). Only
 * projections this code runs, with live tables of its version or a newer one, are waited for: one
 * this database does not have (a deployment or test that runs only some), one no longer
 * registered, and one awaiting its rebuild (its live checkpoint stands still until the rebuilt
 * tables are swapped in, which may take far longer than the bound) would only hold every call of
 * the user back for the whole bound. One stopped by a failed apply is behind, and named in
 * `stopped`: it moves again only when a projector restarts it, so a caller does not wait for it.
 */
export async function projectionsBehind(
  db: Knex,
  userId: string,
  projections: readonly Projection[] = registered,
): Promise<Behind> {
  const running = projections.map((p) => ({ name: p.name, version: p.version }));
  const { rows } = await db.raw<{ rows: Array<{ projection: string; stopped: boolean }> }>(
    `select w.projection, c.stopped_at is not null as stopped from ${TABLE} w
     join jsonb_to_recordset(?::jsonb) as r(name text, version integer) on r.name = w.projection
     join ${READ_MODEL_SCHEMA}.${CHECKPOINTS_TABLE} c on c.name = w.projection
     where w.user_id = ?
       and c.version >= r.version
       and (c.commit_position is null
            or (c.commit_position, coalesce(c.prepare_position, 0)) < (w.commit_position, w.prepare_position))
     order by w.projection`,
    [JSON.stringify(running), userId],
  );
  return { behind: rows.map((r) => r.projection), stopped: rows.filter((r) => r.stopped).map((r) => r.projection) };
}

/** Whether only stopped projections are behind: nothing left worth waiting for. */
export const onlyStopped = (b: Behind): boolean => b.behind.length === b.stopped.length;
