import type { Knex } from 'knex';
import { executeAccountCommand } from '../../src/commands/account/execute.js';
import { newId } from '../../src/domain/shared/ids.js';
import type { EventStore } from '../../src/eventstore/port.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { loadAccount } from '../../src/projections/accounts/queries.js';
import { PostgresEventStore } from '../../src/eventstore/postgres.js';
import { NO_STREAM, type ExpectedRevision, type RecordedEvent } from '../../src/eventstore/port.js';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import type { Projection } from '../../src/projections/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { BENCH_EVENT_TYPES, benchEvent } from './targets.js';

const APPEND_SIZE = 100;
const STREAMS_PER_WRITER = 50;
const PROJECTOR_BATCH = 1000;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * The trivial read model: one counter row per event type, in a table of its own. Applied one
 * event per statement, or set-based (`applyMany`: one upsert per batch), as a projection with
 * many rows per batch would be.
 */
const counterProjection = (table: string, setBased: boolean): Projection => ({
  name: table,
  version: 1,
  handles: BENCH_EVENT_TYPES,
  tables: [table],
  async createTables(db, schema) {
    await db.raw('create table if not exists ??.?? (type text primary key, count bigint not null)', [schema, table]);
  },
  async apply(trx, event, schema) {
    await trx.raw(
      'insert into ??.?? as c (type, count) values (?, 1) on conflict (type) do update set count = c.count + 1',
      [schema, table, event.type],
    );
  },
  ...(setBased
    ? {
        async applyMany(trx: Knex.Transaction, events: readonly RecordedEvent[], schema: string) {
          const counts = new Map<string, number>();
          for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
          await trx.raw(
            `insert into ??.?? as c (type, count) select * from unnest(?::text[], ?::bigint[])
             on conflict (type) do update set count = c.count + excluded.count`,
            [schema, table, [...counts.keys()], [...counts.values()]],
          );
        },
      }
    : {}),
});
const COUNTERS = [counterProjection('bench_event_counts', false), counterProjection('bench_event_counts_many', true)];

/** Registers an account and times how long the accounts read model takes to show it (ms). */
async function accountShownAfter(db: Knex, store: EventStore): Promise<number> {
  const account_id = newId();
  const started = performance.now();
  await executeAccountCommand(
    { store, metadata: { actor: { kind: 'system', id: 'bench' } } },
    { type: 'RegisterAccount', account_id, user_id: newId(), name: 'Newcomer', entity_type: 'seller' },
  );
  while (!(await loadAccount(db, account_id))) await new Promise((resolve) => setTimeout(resolve, 10));
  return performance.now() - started;
}

async function counted(db: Knex, counter: Projection): Promise<number> {
  const { rows } = await db.raw<{ rows: { n: string | null }[] }>('select sum(count)::text as n from rm.??', [
    counter.tables[0]!,
  ]);
  return Number(rows[0]?.n ?? 0);
}

/** Appends `events` with our adapter, then times a projector's catch-up from zero. 0 = counts match. */
export async function runProjectionBench(url: string, events: number, writers: number): Promise<number> {
  const db = createDb(url);
  const store = new PostgresEventStore(url);
  try {
    await migrate(db, migrationSteps([...COUNTERS, accountsProjection], { eventStoreInPostgres: true }));
    const appendsPerWriter = Math.ceil(events / APPEND_SIZE / writers);
    const total = appendsPerWriter * APPEND_SIZE * writers;
    console.log(`appending ${fmt(total)} events in ${APPEND_SIZE}-event appends ...`);
    let started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        const revisions = new Map<string, ExpectedRevision>();
        for (let k = 0; k < appendsPerWriter; k++) {
          const stream = `bench-w${w}s${k % STREAMS_PER_WRITER}`;
          const batch = Array.from({ length: APPEND_SIZE }, (_, i) => benchEvent(w, k * APPEND_SIZE + i));
          const result = await store.appendToStream(stream, batch, {
            expectedRevision: revisions.get(stream) ?? NO_STREAM,
          });
          revisions.set(stream, result.nextExpectedRevision);
          if (w === 0 && (k + 1) % Math.ceil(appendsPerWriter / 10) === 0)
            console.log(`  ~${fmt((k + 1) * APPEND_SIZE * writers)} appended`);
        }
      }),
    );
    const appendSeconds = (performance.now() - started) / 1000;
    console.log(
      `appended ${fmt(total)} events in ${appendSeconds.toFixed(1)} s: ${fmt(total / appendSeconds)} events/s`,
    );

    const results: string[] = [];
    let failed = 0;
    // each counter catches up alone, from zero, over the same log
    for (const counter of COUNTERS) {
      const how = counter.applyMany ? 'set-based (applyMany)' : 'one statement per event';
      console.log(`projector catching up, ${how}, batches of ${fmt(PROJECTOR_BATCH)} ...`);
      // the accounts projection follows too: an account registered mid-way shows how long a
      // connection waits for its read model while another projection works through a backlog
      const projector = new Projector(db, store, [counter, accountsProjection], { batchSize: PROJECTOR_BATCH });
      const progress = setInterval(
        () => void counted(db, counter).then((n) => console.log(`  ${fmt(n)} projected`)),
        10_000,
      );
      started = performance.now();
      let shown: Promise<number> | null = null;
      const newcomer = setTimeout(() => (shown = accountShownAfter(db, store)), 2_000);
      try {
        // the loops, as the service runs them (catchUpOnce would not wait for the account)
        projector.start();
        await projector.whenCaughtUp();
        if (shown !== null) await shown;
      } finally {
        clearInterval(progress);
        clearTimeout(newcomer);
        await projector.stop();
      }
      const seconds = (performance.now() - started) / 1000;
      const projected = await counted(db, counter);
      const newcomerMs = shown === null ? null : await shown;
      results.push(
        `catch-up: ${fmt(projected)} events projected ${how}, ${seconds.toFixed(1)} s, ${fmt(projected / seconds)} events/s; ` +
          (newcomerMs === null
            ? 'over before an account was registered'
            : `an account registered 2 s in showed after ${fmt(newcomerMs)} ms (goal ≤ 2,000)`),
      );
      if (projected !== total) {
        console.error(`FAIL: the counters add up to ${fmt(projected)}, not ${fmt(total)}`);
        failed = 1;
      }
    }
    console.log('');
    console.log(
      `append:   ${fmt(total)} events, ${appendSeconds.toFixed(1)} s, ${fmt(total / appendSeconds)} events/s`,
    );
    for (const line of results) console.log(line);
    return failed;
  } finally {
    await store.close();
    await db.destroy();
  }
}
