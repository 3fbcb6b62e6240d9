import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { createDb } from '../../src/infra/db.js';
import { isTransient } from '../../src/infra/transient.js';
import { newId } from '../../src/domain/shared/ids.js';
import { QUIET_KNEX_LOG } from '../support/tcp-proxy.js';

// Which failures say "later": each error here is one PostgreSQL, node-postgres or knex really
// raised, against the test database or a socket that behaves as an outage does.

describe('transient failures (isTransient)', function () {
  this.timeout(30_000);
  let db: Knex;
  let other: Knex;
  const table = `transient_${newId().replaceAll('-', '')}`;

  /** The error `work` fails with. */
  const failure = async (work: () => Promise<unknown>): Promise<unknown> => {
    try {
      await work();
    } catch (err) {
      return err;
    }
    throw new Error('expected the work to fail');
  };

  before(async () => {
    db = createDb(process.env.DATABASE_URL!, { min: 0, max: 4 });
    other = createDb(process.env.DATABASE_URL!, { min: 0, max: 2 });
    await db.schema.createTable(table, (t) => t.integer('id').primary());
    await db(table).insert([{ id: 1 }, { id: 2 }]);
  });
  after(async () => {
    await db.schema.dropTableIfExists(table);
    await Promise.all([db.destroy(), other.destroy()]);
  });

  it('a lock not had within lock_timeout (55P03) and a statement past statement_timeout (57014) pass', async () => {
    const holder = await other.transaction();
    try {
      await holder.raw('lock table ?? in access exclusive mode', [table]);
      const locked = await failure(() =>
        db.transaction(async (trx) => {
          await trx.raw(`set local lock_timeout = '100ms'`);
          await trx(table).insert({ id: 3 });
        }),
      );
      expect(locked).to.include({ code: '55P03' });
      expect(isTransient(locked)).to.equal(true);
    } finally {
      await holder.rollback();
    }
    const slow = await failure(() =>
      db.transaction(async (trx) => {
        await trx.raw(`set local statement_timeout = '50ms'`);
        await trx.raw('select pg_sleep(1)');
      }),
    );
    expect(slow).to.include({ code: '57014' });
    expect(isTransient(slow)).to.equal(true);
  });

  it('a deadlock (40P01) passes', async () => {
    const [a, b] = [await db.transaction(), await other.transaction()];
    try {
      await a(table).where({ id: 1 }).update({ id: 1 });
      await b(table).where({ id: 2 }).update({ id: 2 });
      const outcomes = await Promise.allSettled([
        a(table).where({ id: 2 }).update({ id: 2 }),
        b(table).where({ id: 1 }).update({ id: 1 }),
      ]);
      const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(refused?.reason).to.include({ code: '40P01' });
      expect(isTransient(refused!.reason)).to.equal(true);
    } finally {
      await Promise.allSettled([a.rollback(), b.rollback()]);
    }
  });

  it('a connection the server ended (57P01), one refused and one cut pass', async () => {
    const conn = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
    try {
      const { rows } = await conn.raw('select pg_backend_pid() as pid');
      const ended = await failure(() =>
        Promise.all([conn.raw('select pg_sleep(5)'), db.raw('select pg_terminate_backend(?)', [rows[0].pid])]),
      );
      expect(isTransient(ended), String(ended)).to.equal(true);
    } finally {
      await conn.destroy();
    }
    // a port nobody listens on, and a server that hangs up at once (as a proxy with its upstream gone)
    const closed = await listening((s) => s.destroy());
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = createDb(`postgres://postgres@127.0.0.1:${port}/x`, { min: 0, max: 1 }, QUIET_KNEX_LOG);
    const cutServer = await listening((s) => s.destroy());
    const cut = createDb(
      `postgres://postgres@127.0.0.1:${(cutServer.address() as AddressInfo).port}/x`,
      { min: 0, max: 1 },
      QUIET_KNEX_LOG,
    );
    try {
      const noOne = await failure(() => refused.raw('select 1'));
      expect(noOne).to.include({ code: 'ECONNREFUSED' });
      expect(isTransient(noOne)).to.equal(true);
      const hungUp = await failure(() => cut.raw('select 1'));
      expect(isTransient(hungUp), String(hungUp)).to.equal(true);
    } finally {
      await Promise.all([refused.destroy(), cut.destroy()]);
      await new Promise((resolve) => cutServer.close(resolve));
    }
  });

  it('a pool that could not hand out a connection in time passes', async () => {
    const held = new Set<Socket>();
    const silent = await listening((s) => held.add(s)); // accepts and never answers
    const { port } = silent.address() as AddressInfo;
    const pool = knexFactory({
      client: 'pg',
      connection: `postgres://postgres@127.0.0.1:${port}/x`,
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 200,
      log: QUIET_KNEX_LOG,
    });
    try {
      const timedOut = await failure(() => pool.raw('select 1'));
      expect(timedOut).to.include({ name: 'KnexTimeoutError' });
      expect(isTransient(timedOut)).to.equal(true);
    } finally {
      for (const s of held) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
      await pool.destroy();
    }
  });

  it("EventStoreDB out of reach passes, as its client reports it converted (a read) or as gRPC's status (an append)", async () => {
    const closed = await listening((s) => s.destroy());
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const client = EventStoreDBClient.connectionString(`esdb://127.0.0.1:${port}?tls=false`);
    try {
      const read = await failure(async () => {
        for await (const _ of client.readStream('transient-test')) break;
      });
      expect(read).to.include({ type: 'unavailable' });
      const append = await failure(() =>
        client.appendToStream('transient-test', [jsonEvent({ type: 'TransientTest', data: {} })]),
      );
      expect(append).to.include({ code: 14 });
      for (const err of [read, append]) expect(isTransient(err), String(err)).to.equal(true);
    } finally {
      await client.dispose();
    }
  });

  it('what would fail the same way again does not pass: a broken constraint, a refused value, a missing table, a protocol violation, our own error', async () => {
    const duplicate = await failure(() => db(table).insert({ id: 1 }));
    expect(duplicate).to.include({ code: '23505' });
    const badValue = await failure(() => db.raw('select ?::int', ['one']));
    expect(badValue).to.include({ code: '22P02' });
    const missing = await failure(() => db.raw('select * from no_such_table_here'));
    expect(missing).to.include({ code: '42P01' });
    // more parameters than the protocol carries: a connection-class code (08P01) that our statement repeats
    const tooMany = await failure(() =>
      db.raw(
        `select array_length(array[${Array.from({ length: 70_000 }, () => '?::int').join(', ')}], 1)`,
        Array(70_000).fill(1),
      ),
    );
    expect(tooMany).to.include({ code: '08P01' });
    const ours = await failure(async () => (null as unknown as { a: number }).a);
    for (const err of [duplicate, badValue, missing, tooMany, ours])
      expect(isTransient(err), String(err)).to.equal(false);
    // a passing cause under an error of ours passes; a lasting one does not
    expect(isTransient(new Error('apply failed', { cause: { code: '40001' } }))).to.equal(true);
    expect(isTransient(new Error('apply failed', { cause: duplicate }))).to.equal(false);
  });
});

async function listening(onConnection: (socket: Socket) => void): Promise<Server> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
