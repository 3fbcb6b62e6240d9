import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import {
  comparePositions,
  type EventMetadata,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../../src/eventstore/port.js';
import { createEventStore } from '../../src/eventstore/index.js';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { applyEvents } from '../../src/projections/apply.js';
import { readCheckpoints } from '../../src/projections/checkpoints.js';
import { READ_MODEL_SCHEMA, wants, type Projection } from '../../src/projections/projection.js';
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
 * Applies `events` in one batch (the projection's set-based `applyMany` called directly, where it
 * has one, so a failing one fails here instead of falling back to one event at a time) and, in
 * another fresh schema, one event per call, and checks both leave the same rows. `given`: the
 * first so many events are applied one at a time in both, so the batch starts from their state.
 */
export async function assertBatchEqualsOneByOne(
  db: Knex,
  projection: Projection,
  events: readonly RecordedEvent[],
  { given = 0 }: { given?: number } = {},
): Promise<void> {
  const applyMany = projection.applyMany?.bind(projection);
  const build = (label: string, batches: ReadonlyArray<readonly RecordedEvent[]>, many = false) =>
    withScratchSchema(db, label, async (schema) => {
      await db.raw('create schema ??', [schema]);
      await projection.createTables(db, schema);
      await db.transaction(async (trx) => {
        for (const batch of batches)
          if (many && applyMany)
            await applyMany(
              trx,
              batch.filter((e) => wants(projection, e)),
              schema,
            );
          else await applyEvents(trx, projection, batch, schema);
      });
      return snapshotTables(db, projection, schema);
    });
  const batched = await build('batched', [...events.slice(0, given).map((e) => [e]), events.slice(given)], true);
  expect(hasRows(batched), `${projection.name}: the events left its tables empty`).to.equal(true);
  const single = await build(
    'single',
    events.map((e) => [e]),
  );
  expect(batched, `${projection.name}: a batch left other rows than one event at a time`).to.deep.equal(single);
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

/** assertApplyTwiceSameResult for these stream events, on the run's database with a connection of its own. */
export async function assertStreamEventsApplyTwice(
  projection: Projection,
  events: readonly StreamEvent[],
): Promise<void> {
  const db = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
  try {
    await assertApplyTwiceSameResult(db, projection, recordedEvents(events));
  } finally {
    await db.destroy();
  }
}

/** A domain event and the stream it was appended to. */
export interface StreamEvent {
  stream: string;
  type: string;
  data: unknown;
  metadata?: EventMetadata;
}

/** These domain events, in this order, all appended to `stream`. */
export const inStream = (stream: string, events: readonly { type: string; data: unknown }[]): StreamEvent[] =>
  events.map((e) => ({ stream, ...e }));

const RECORDED_FROM = Date.parse('2026-01-01T00:00:00.000Z');

/**
 * The events as the store would hand them to a projection: revisions count from 0 in each
 * stream, positions and `createdAt` (a second apart from 2026-01-01) follow the array's order,
 * metadata names a system actor unless the event brings its own.
 */
export function recordedEvents(events: readonly StreamEvent[]): RecordedEvent[] {
  const revisions = new Map<string, bigint>();
  return events.map((e, i) => {
    const revision = revisions.get(e.stream) ?? 0n;
    revisions.set(e.stream, revision + 1n);
    return {
      id: randomUUID(),
      streamId: e.stream,
      revision,
      type: e.type,
      data: e.data,
      metadata: { actor: { kind: 'system', id: 'projection-spec' }, ...e.metadata },
      position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
      createdAt: new Date(RECORDED_FROM + i * 1000),
    };
  });
}

export type Row = Record<string, unknown>;

/** Timestamps as ISO strings, so expected rows can spell them as the events do. */
const plain = (row: Row): Row =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]));

/** JSON with every object's keys sorted (jsonb keeps its own key order). */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

const inOrder = (rows: Row[]): Row[] =>
  rows
    .map((row) => ({ row, key: canonical(row) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ row }) => row);

/**
 * Given/when/then for a projection over real PostgreSQL (after emmett's PostgreSQLProjectionSpec):
 *
 *   const given = projectionSpec(mutationsProjection);
 *   await given(inStream('mutation-1', [admitted])).when(inStream('mutation-1', [started]))
 *     .then('mutation_receipts', [{ id: '1', status: 'submitting', attempts: 1 }]);
 *
 * Each `then` creates the projection's tables in a scratch schema, applies the `given` events
 * and then the `when` events (one transaction each) through `applyEvents`, checks, and drops
 * the schema. The checks:
 *   then(table, rows)          the table holds exactly these rows (in any order), compared on
 *                              the columns the expected rows name; timestamps as ISO strings
 *   then(table, (rows) => ...) every column of every row, ordered by the whole row
 *   then((db, schema) => ...)  any query of the scratch schema
 * It must be awaited (or returned to mocha). The database is DATABASE_URL unless given.
 */
export function projectionSpec(projection: Projection, options: { connectionString?: string } = {}) {
  return (given: readonly StreamEvent[]) => ({
    when(events: readonly StreamEvent[]) {
      const recorded = recordedEvents([...given, ...events]);
      const run = async (check: (db: Knex, schema: string) => Promise<void> | void) => {
        const db = createDb(options.connectionString ?? process.env.DATABASE_URL!, { min: 0, max: 1 });
        try {
          await withScratchSchema(db, 'spec', async (schema) => {
            await db.raw('create schema ??', [schema]);
            await projection.createTables(db, schema);
            for (const batch of [recorded.slice(0, given.length), recorded.slice(given.length)])
              await db.transaction((trx) => applyEvents(trx, projection, batch, schema));
            await check(db, schema);
          });
        } finally {
          await db.destroy();
        }
      };
      function then(table: string, expected: Row[] | ((rows: Row[]) => Promise<void> | void)): Promise<void>;
      function then(check: (db: Knex, schema: string) => Promise<void> | void): Promise<void>;
      function then(
        target: string | ((db: Knex, schema: string) => Promise<void> | void),
        expected?: Row[] | ((rows: Row[]) => Promise<void> | void),
      ): Promise<void> {
        if (typeof target !== 'string') return run(target);
        return run(async (db, schema) => {
          if (typeof expected === 'function') {
            const rows: Row[] = (await db.raw('select * from ??.?? r order by r::text', [schema, target])).rows;
            await expected(rows.map(plain));
            return;
          }
          const columns = Object.keys(expected![0] ?? {});
          for (const row of expected!)
            expect(Object.keys(row), 'every expected row names the same columns').to.have.members(columns);
          const rows: Row[] = await db.withSchema(schema).table(target).select(columns);
          expect(inOrder(rows.map(plain)), `${projection.name}: rows of ${target}`).to.deep.equal(
            inOrder(expected!.map(plain)),
          );
        });
      }
      return { then };
    },
  });
}

/** The test database migrated for `projections`, the event store, and a started projector of them. */
export async function startProjecting(projections: Projection[], options: ProjectorOptions = { pollMs: 50 }) {
  const db = createDb(process.env.DATABASE_URL!);
  const store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
  await migrate(db, migrationSteps(projections, { eventStoreInPostgres: true }));
  const projector = new Projector(db, store, projections, options);
  projector.start();
  return {
    db,
    store,
    projector,
    async close() {
      await projector.stop();
      await store.close();
      await db.destroy();
    },
  };
}
