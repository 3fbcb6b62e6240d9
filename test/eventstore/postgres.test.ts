import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { createDb } from '../../src/infra/db.js';
import { PostgresEventStore } from '../../src/eventstore/postgres.js';
import { EVENTS_APPENDED_CHANNEL, migrateEventStore } from '../../src/eventstore/schema.js';
import { setTimeout as delay } from 'node:timers/promises';
import { admin, testDatabaseUrl } from '../support/env.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { eventStoreContract } from './contract.js';

async function migratedStore(): Promise<PostgresEventStore> {
  const url = process.env.DATABASE_URL!;
  const db = createDb(url);
  try {
    // twice: the migration is idempotent
    await migrateEventStore(db);
    await migrateEventStore(db);
  } finally {
    await db.destroy();
  }
  // small subscription pages: a typed subscription then scans past other events in several reads
  return new PostgresEventStore(url, { pollIntervalMs: 50, subscriptionBatchSize: 5 });
}

describe('event store contract: PostgreSQL adapter', () => {
  eventStoreContract(migratedStore);
});

describe('event store: PostgreSQL table', () => {
  it("the service's migrations compress events' data with lz4 where the server has it, pglz otherwise", async () => {
    const db = createDb(process.env.DATABASE_URL!);
    await migrate(db, migrationSteps([], { eventStoreInPostgres: true })).finally(() => db.destroy());
    const store = await migratedStore();
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL! });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`,
      );
      const stream = `compressed-${randomUUID()}`;
      await store.appendToStream(stream, [
        { type: 'Big', data: { rows: Array.from({ length: 2_000 }, (_, i) => ({ i })) } },
      ]);
      const stored = await client.query(
        'select pg_column_compression(data) as method from events where stream_id = $1',
        [stream],
      );
      expect(stored.rows[0].method).to.equal(rows[0].lz4 ? 'lz4' : 'pglz');
    } finally {
      await client.end();
      await store.close();
    }
  });
});

describe('event store: PostgreSQL reads bounded by bytes', () => {
  it("a filtered typed read stops once its events' stored data reaches maxBytes, and reads on from there", async () => {
    const store = await migratedStore();
    try {
      const type = `Sized${randomUUID().slice(0, 8)}`;
      const after = await store.headPosition();
      // random hex barely compresses: each event stores over 20 kB
      const pages = Array.from({ length: 6 }, (_, i) => ({
        type,
        data: { dataset: 'a', i, rows: Array.from({ length: 640 }, () => randomUUID()).join('') },
      }));
      const last = (await store.appendToStream(`sized-${randomUUID()}`, pages)).position;
      const reads: number[][] = [];
      let through = after;
      while (through === null || through.prepare < last.prepare) {
        const read = await store.readAllOfTypes({
          after: through,
          types: [type],
          filter: { field: 'dataset', values: ['a'] },
          limit: 100,
          maxBytes: 25_000,
        });
        reads.push(read.events.map((e) => (e.data as { i: number }).i));
        if (read.events.length > 0) expect(read.through).to.deep.equal(read.events.at(-1)!.position);
        through = read.through;
      }
      expect(reads.flat()).to.deep.equal([0, 1, 2, 3, 4, 5]);
      // cut short by bytes, not by the limit: no read holds more than two of these events
      expect(Math.max(...reads.map((r) => r.length))).to.be.within(1, 2);
    } finally {
      await store.close();
    }
  });
});

describe('event store: PostgreSQL global order', () => {
  it('orders transaction ids as numbers across a digit boundary (9 before 10)', async () => {
    const store = await migratedStore();
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL! });
    await client.connect();
    try {
      // Long-finished transaction ids, so readAll shows them at once; the later-inserted
      // row gets the lower transaction id.
      const streams = [`order-10-${randomUUID()}`, `order-9-${randomUUID()}`];
      await client.query(
        `insert into events (event_id, stream_id, stream_revision, type, data, transaction_id)
         values ($1, $2, 0, 'Old', '{}', '10'), ($3, $4, 0, 'Old', '{}', '9')`,
        [randomUUID(), streams[0], randomUUID(), streams[1]],
      );
      const page = await store.readAll({ after: { commit: 8n, prepare: 0n }, limit: 2 });
      expect(page.map((e) => [e.position.commit, e.streamId])).to.deep.equal([
        [9n, streams[1]],
        [10n, streams[0]],
      ]);
    } finally {
      await client.end();
      await store.close();
    }
  });
});

describe('event store: PostgreSQL NOTIFY only while another store listens', () => {
  it('an append notifies no one while no other store listens, and other stores once one does', async function () {
    this.timeout(60_000);
    const name = `es_notify_${randomUUID().slice(0, 8)}`;
    await admin((c) => c.query(`create database "${name}"`));
    const url = testDatabaseUrl(name);
    const db = createDb(url);
    const stores: PostgresEventStore[] = [];
    // an unnamed listener: it hears every NOTIFY on the channel, but appenders don't count it
    const raw = new pg.Client({ connectionString: url });
    try {
      await migrateEventStore(db);
      await raw.connect();
      let notified = 0;
      raw.on('notification', () => notified++);
      await raw.query(`listen ${EVENTS_APPENDED_CHANNEL}`);
      const appender = new PostgresEventStore(url);
      stores.push(appender);
      const heardHere = new Promise<void>((resolve) => appender.onAppended(() => resolve()));
      for (let i = 0; i < 3; i++) await appender.appendToStream(`alone-${i}`, [{ type: 'Alone', data: {} }]);
      await heardHere; // its own listeners hear at once, NOTIFY or not
      await delay(300);
      expect(notified, 'NOTIFYs with no other store listening').to.equal(0);
      const other = new PostgresEventStore(url);
      stores.push(other);
      let heardThere = 0;
      other.onAppended(() => heardThere++);
      // the other store's LISTEN comes up asynchronously, and the appender looks again within a second
      const deadline = Date.now() + 10_000;
      while (heardThere === 0 && Date.now() < deadline) {
        await appender.appendToStream(`shared-${randomUUID()}`, [{ type: 'Shared', data: {} }]);
        await delay(50);
      }
      expect(heardThere, 'the other store heard an append').to.be.at.least(1);
      expect(notified, 'NOTIFYs once another store listens').to.be.at.least(1);
    } finally {
      await raw.end().catch(() => undefined);
      for (const s of stores) await s.close();
      await db.destroy();
      await admin((c) => c.query(`drop database if exists "${name}" with (force)`));
    }
  });
});
