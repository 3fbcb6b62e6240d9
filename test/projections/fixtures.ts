import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { comparePositions, type AppendResult, type Position, type RecordedEvent } from '../../src/eventstore/port.js';
import { PostgresEventStore } from '../../src/eventstore/postgres.js';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { setCheckpoint } from '../../src/projections/checkpoints.js';
import type { Projection } from '../../src/projections/projection.js';
import { migrateProjections } from '../../src/projections/schema.js';

// Test-only projections and set-up. The database (and its event log) is shared with the
// other test files, so every test uses projection names and streams of its own and reads
// back only its own streams.

export const COUNTED = 'ProjectionTest.Counted';

export const uniqueName = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;

export interface TestEnv {
  db: Knex;
  store: PostgresEventStore;
  close(): Promise<void>;
}

/** A knex pool and an event store of their own, as a separate process would have. */
export async function openEnv(): Promise<TestEnv> {
  const url = process.env.DATABASE_URL!;
  const db = createDb(url);
  const store = new PostgresEventStore(url, { poolSize: 4 });
  await migrate(db, migrationSteps([], { eventStoreInPostgres: true }));
  return { db, store, close: async () => void (await Promise.all([store.close(), db.destroy()])) };
}

/**
 * Migrates new projections and starts them at the log's current end, so a test's batches
 * hold its own events only (and it needn't fold what other test files appended).
 */
export async function migrateAtHead(db: Knex, projections: readonly Projection[]): Promise<void> {
  await migrateProjections(db, projections);
  const { rows } = await db.raw(
    'select transaction_id::text as commit, global_position as prepare from events order by transaction_id desc, global_position desc limit 1',
  );
  const head = rows[0] ? { commit: BigInt(rows[0].commit), prepare: BigInt(rows[0].prepare) } : null;
  for (const p of projections) await setCheckpoint(db, p.name, p.version, head);
}

/**
 * Events per stream, keyed on the stream's revision so applying an event twice changes
 * nothing. Version 2 also keeps the type of each stream's last event (a new column).
 */
export function streamCounts(name: string, version = 1): Projection {
  return {
    name,
    version,
    handles: [COUNTED],
    tables: [name],
    async createTables(db, schema) {
      await db.schema.withSchema(schema).createTable(name, (t) => {
        t.text('stream_id').primary();
        t.integer('events').notNullable();
        t.bigInteger('last_revision').notNullable();
        if (version >= 2) t.text('last_type').notNullable();
      });
    },
    async apply(trx, event, schema) {
      const row = {
        stream_id: event.streamId,
        events: Number(event.revision) + 1,
        last_revision: event.revision.toString(),
        ...(version >= 2 ? { last_type: event.type } : {}),
      };
      await trx.raw(
        `insert into ??.?? as t (${Object.keys(row).join(', ')}) values (${Object.keys(row)
          .map(() => '?')
          .join(', ')})
         on conflict (stream_id) do update set ${Object.keys(row)
           .map((k) => `${k} = excluded.${k}`)
           .join(', ')}
         where t.last_revision < excluded.last_revision`,
        [schema, name, ...Object.values(row)],
      );
    },
  };
}

/**
 * One row per application of an event, on purpose not idempotent: it shows any event
 * applied twice (or skipped). `failOn` makes apply throw, as a crash in a fold would.
 */
export function applyLog(name: string, failOn?: (e: RecordedEvent) => boolean): Projection {
  return {
    name,
    version: 1,
    handles: [COUNTED],
    tables: [name],
    async createTables(db, schema) {
      await db.schema.withSchema(schema).createTable(name, (t) => {
        t.uuid('event_id').notNullable();
        t.text('stream_id').notNullable();
        t.decimal('commit_position', 20, 0).notNullable();
        t.decimal('prepare_position', 20, 0).notNullable();
      });
    },
    async apply(trx, event, schema) {
      if (failOn?.(event)) throw new Error(`refusing event ${event.id}`);
      await trx.withSchema(schema).table(name).insert({
        event_id: event.id,
        stream_id: event.streamId,
        commit_position: event.position.commit.toString(),
        prepare_position: event.position.prepare.toString(),
      });
    },
  };
}

/**
 * applyLog whose every apply first takes a share of the table `gate` (the test's own), waiting at
 * most 100 ms for it: while a test holds the gate, the database refuses each apply as a busy one
 * does (55P03, lock_not_available). `tries`: the applies begun.
 */
export function gatedLog(name: string, gate: string, version = 1): { projection: Projection; tries: () => number } {
  const base = applyLog(name);
  let tries = 0;
  const projection: Projection = {
    ...base,
    version,
    async apply(trx, event, schema) {
      tries++;
      await trx.raw(`set local lock_timeout = '100ms'`);
      await trx.raw('lock table ?? in access share mode', [gate]);
      await base.apply(trx, event, schema);
    },
  };
  return { projection, tries: () => tries };
}

/** Rows numbered by a counter kept in memory: a rebuild numbers them differently. */
export function memoryNumbered(name: string): Projection {
  let next = 0;
  return {
    name,
    version: 1,
    handles: [COUNTED],
    tables: [name],
    async createTables(db, schema) {
      await db.schema.withSchema(schema).createTable(name, (t) => {
        t.uuid('event_id').primary();
        t.integer('n').notNullable();
      });
    },
    async apply(trx, event, schema) {
      await trx
        .withSchema(schema)
        .table(name)
        .insert({ event_id: event.id, n: next++ })
        .onConflict('event_id')
        .ignore();
    },
  };
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

/** Appends `perStream` events, one append each, to each stream in turn. */
export async function appendCounted(
  store: PostgresEventStore,
  streams: readonly string[],
  perStream: number,
): Promise<AppendResult[]> {
  const results: AppendResult[] = [];
  for (let i = 0; i < perStream; i++) {
    for (const stream of streams)
      results.push(await store.appendToStream(stream, [{ id: randomUUID(), type: COUNTED, data: { i } }]));
  }
  return results;
}

/** `writers` concurrent appenders, each to a stream of its own, in appends of 1 to 3 events. */
export async function appendConcurrently(
  store: PostgresEventStore,
  prefix: string,
  writers: number,
  eventsPerWriter: number,
): Promise<AppendResult[]> {
  const perWriter = await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const results: AppendResult[] = [];
      for (let written = 0; written < eventsPerWriter;) {
        const n = Math.min(1 + (written % 3), eventsPerWriter - written);
        const events = Array.from({ length: n }, (_, k) => ({ type: COUNTED, data: { i: written + k } }));
        results.push(await store.appendToStream(`${prefix}-w${w}`, events));
        written += n;
      }
      return results;
    }),
  );
  return perWriter.flat();
}

export const lastPosition = (results: readonly AppendResult[]): Position =>
  results.map((r) => r.position).reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));

/** The events of streams starting with `prefix`, in log order. */
export async function readOwnEvents(
  db: Knex,
  prefix: string,
): Promise<{ id: string; streamId: string; revision: number; position: Position }[]> {
  const rows: {
    event_id: string;
    stream_id: string;
    stream_revision: string;
    transaction_id: string;
    global_position: string;
  }[] = (
    await db.raw(
      `select event_id, stream_id, stream_revision, transaction_id::text, global_position from events
       where stream_id like ? order by transaction_id, global_position`,
      [`${prefix}-%`],
    )
  ).rows;
  return rows.map((r) => ({
    id: r.event_id,
    streamId: r.stream_id,
    revision: Number(r.stream_revision),
    position: { commit: BigInt(r.transaction_id), prepare: BigInt(r.global_position) },
  }));
}

/** `stream_id → events` from a stream-counts table, for the streams starting with `prefix`. */
export async function countsOf(
  db: Knex,
  schema: string,
  table: string,
  prefix: string,
): Promise<Record<string, number>> {
  const rows: { stream_id: string; events: number }[] = await db
    .withSchema(schema)
    .table(table)
    .where('stream_id', 'like', `${prefix}-%`)
    .select('stream_id', 'events');
  return Object.fromEntries(rows.map((r) => [r.stream_id, r.events]));
}

/** `event_id → times applied` from an apply-log table, for the streams starting with `prefix`. */
export async function applicationsOf(
  db: Knex,
  schema: string,
  table: string,
  prefix: string,
): Promise<Map<string, number>> {
  const rows: { event_id: string; n: string }[] = await db
    .withSchema(schema)
    .table(table)
    .where('stream_id', 'like', `${prefix}-%`)
    .groupBy('event_id')
    .select('event_id', db.raw('count(*) as n'));
  return new Map(rows.map((r) => [r.event_id, Number(r.n)]));
}
