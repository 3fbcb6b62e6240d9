import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../../src/eventstore/port.js';
import { applyEvents } from '../../src/projections/apply.js';
import { readCheckpoints } from '../../src/projections/checkpoints.js';
import { READ_MODEL_SCHEMA, type Projection } from '../../src/projections/projection.js';
import { Projector, type ProjectorOptions } from '../../src/projections/projector.js';
import { buildInto } from '../../src/projections/rebuild.js';

export type TableRows = Record<string, Record<string, unknown>[]>;

/** Every table of the projection in `schema`, each ordered by its whole row. */
export async function snapshotTables(
  db: Knex | Knex.Transaction,
  projection: Projection,
  schema: string,
): Promise<TableRows> {
  const snapshot: TableRows = {};
  for (const table of projection.tables) {
    snapshot[table] = (await db.raw('select * from ??.?? r order by r::text', [schema, table])).rows;
  }
  return snapshot;
}

const hasRows = (snapshot: TableRows) => Object.values(snapshot).some((rows) => rows.length > 0);

async function withScratchSchema<T>(db: Knex, label: string, fn: (schema: string) => Promise<T>): Promise<T> {
  const schema = `test_${label}_${randomBytes(4).toString('hex')}`;
  try {
    return await fn(schema);
  } finally {
    await db.raw('drop schema if exists ?? cascade', [schema]);
  }
}

/**
 * Applies `events` into fresh tables, snapshots them, applies all of them again and checks
 * nothing changed. Fails too when the events leave the tables empty (nothing was tested).
 */
export async function assertApplyTwiceSameResult(
  db: Knex,
  projection: Projection,
  events: readonly RecordedEvent[],
): Promise<void> {
  await withScratchSchema(db, 'apply_twice', async (schema) => {
    await db.raw('create schema ??', [schema]);
    await projection.createTables(db, schema);
    await db.transaction((trx) => applyEvents(trx, projection, events, schema));
    const once = await snapshotTables(db, projection, schema);
    expect(hasRows(once), `${projection.name}: the events left its tables empty`).to.equal(true);
    await db.transaction((trx) => applyEvents(trx, projection, events, schema));
    const twice = await snapshotTables(db, projection, schema);
    expect(twice, `${projection.name}: applying the same events twice changed its tables`).to.deep.equal(once);
  });
}

/**
 * Builds the projection from position zero into a fresh schema, up to exactly the live
 * checkpoint, and compares every table, row by row, with the live tables (read in the same
 * snapshot as the checkpoint, so a running projector doesn't disturb the comparison).
 */
export async function assertRebuildEqualsLive(db: Knex, store: EventStore, projection: Projection): Promise<void> {
  const { live, position } = await db.transaction(
    async (trx) => {
      const checkpoint = (await readCheckpoints(trx)).get(projection.name);
      expect(checkpoint?.version, `${projection.name}: live tables at another version`).to.equal(projection.version);
      return { live: await snapshotTables(trx, projection, READ_MODEL_SCHEMA), position: checkpoint!.position };
    },
    { isolationLevel: 'repeatable read' },
  );
  expect(hasRows(live), `${projection.name}: the live tables are empty`).to.equal(true);
  await withScratchSchema(db, 'rebuild', async (schema) => {
    await buildInto(db, store, projection, schema, { until: position });
    const rebuilt = await snapshotTables(db, projection, schema);
    expect(rebuilt, `${projection.name}: rebuilt tables differ from the live ones`).to.deep.equal(live);
  });
}

/** Waits until the running projector has applied every one of these appends (or events). */
export async function waitForCaughtUp(projector: Projector, appends: readonly { position: Position }[]): Promise<void> {
  const last = appends
    .map((a) => a.position)
    .reduce<Position | null>((max, p) => (max && comparePositions(max, p) >= 0 ? max : p), null);
  await projector.whenCaughtUp(last);
}

/**
 * Runs a projector until its projections have applied these appends, then stops it. Unlike
 * `catchUpOnce`, it waits for appends that a transaction still running elsewhere keeps from
 * `readAll` for now.
 */
export async function catchUpTo(
  db: Knex,
  store: EventStore,
  projections: readonly Projection[],
  appends: readonly { position: Position }[],
  options?: ProjectorOptions,
): Promise<void> {
  const projector = new Projector(db, store, projections, options);
  projector.start();
  try {
    await waitForCaughtUp(projector, appends);
  } finally {
    await projector.stop();
  }
}
