import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { readCheckpoints } from '../../src/projections/checkpoints.js';
import { RebuildInProgressError, withRebuildLock } from '../../src/projections/locks.js';
import { READ_MODEL_SCHEMA, type Projection } from '../../src/projections/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { compactTables, rebuildProjection, rebuildSchemaName } from '../../src/projections/rebuild.js';
import { createDb } from '../../src/infra/db.js';
import { runRebuildCommand, UsageError } from '../../src/projections/rebuild-command.js';
import { migrateProjections } from '../../src/projections/schema.js';
import { assertRebuildEqualsLive, catchUpTo, waitForCaughtUp } from '../support/projections.js';
import { until } from '../support/receiver.js';
import {
  appendConcurrently,
  appendCounted,
  applicationsOf,
  applyLog,
  COUNTED,
  countsOf,
  gatedLog,
  migrateAtHead,
  openEnv,
  readOwnEvents,
  rejection,
  streamCounts,
  uniqueName,
  type TestEnv,
} from './fixtures.js';

const collect = (stream: PassThrough) => {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
};

describe('rebuild', () => {
  let env: TestEnv;
  let projector: Projector | null = null;

  before(async () => {
    env = await openEnv();
  });
  afterEach(async () => {
    await projector?.stop();
    projector = null;
  });
  after(async () => {
    await env.close();
  });

  it('builds tables equal to the live ones', async () => {
    const prefix = uniqueName('eq');
    const counts = streamCounts(uniqueName('counts'));
    await migrateProjections(env.db, [counts]);
    const appended = await appendCounted(env.store, [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`], 4);
    await catchUpTo(env.db, env.store, [counts], appended);
    await assertRebuildEqualsLive(env.db, env.store, counts);
  });

  it('swaps in while the live projector runs and writers append: every event applied exactly once', async () => {
    const prefix = uniqueName('live');
    const log = applyLog(uniqueName('log'));
    const counts = streamCounts(uniqueName('counts'));
    await migrateAtHead(env.db, [log, counts]);
    projector = new Projector(env.db, env.store, [log, counts], { batchSize: 10, pollMs: 20 });
    projector.start();

    const writing = appendConcurrently(env.store, prefix, 4, 100);
    await Promise.all([rebuildProjection(env.db, env.store, log), rebuildProjection(env.db, env.store, counts)]);
    await waitForCaughtUp(projector, await writing);

    const own = await readOwnEvents(env.db, prefix);
    expect(Object.fromEntries(await applicationsOf(env.db, READ_MODEL_SCHEMA, log.name, prefix))).to.deep.equal(
      Object.fromEntries(own.map((e) => [e.id, 1])),
    );
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal(
      Object.fromEntries([0, 1, 2, 3].map((w) => [`${prefix}-w${w}`, 100])),
    );
    await assertRebuildEqualsLive(env.db, env.store, counts);
    const leftover = await env.db.raw('select 1 from pg_namespace where nspname in (?, ?)', [
      rebuildSchemaName(log.name),
      rebuildSchemaName(counts.name),
    ]);
    expect(leftover.rows, 'rebuild schemas are dropped after the swap').to.deep.equal([]);
  });

  it('rebuilds a projection whose version was bumped when the projector starts', async () => {
    const prefix = uniqueName('bump');
    const name = uniqueName('counts');
    await migrateAtHead(env.db, [streamCounts(name, 1)]);
    const appended = await appendCounted(env.store, [`${prefix}-a`, `${prefix}-b`], 2);
    await catchUpTo(env.db, env.store, [streamCounts(name, 1)], appended);

    const v2 = streamCounts(name, 2);
    await migrateProjections(env.db, [v2]);
    // told once the rebuilt tables are in (the service creates the views over them then)
    let told!: (at: { name: string; version: number | undefined }) => void;
    const rebuilt = new Promise<{ name: string; version: number | undefined }>((resolve) => (told = resolve));
    const onRebuilt = async (rebuiltName: string) =>
      told({ name: rebuiltName, version: (await readCheckpoints(env.db)).get(name)?.version });
    projector = new Projector(env.db, env.store, [v2], { onRebuilt });
    expect((await projector.status())[0]).to.include({ state: 'awaiting_rebuild' });
    projector.start();
    await waitForCaughtUp(projector, appended);
    expect(await rebuilt).to.deep.equal({ name, version: 2 });

    expect((await readCheckpoints(env.db)).get(name)).to.include({ version: 2 });
    const rows = await env.db
      .withSchema(READ_MODEL_SCHEMA)
      .table(name)
      .where('stream_id', 'like', `${prefix}-%`)
      .orderBy('stream_id')
      .select('stream_id', 'events', 'last_type');
    expect(rows).to.deep.equal([
      { stream_id: `${prefix}-a`, events: 2, last_type: 'ProjectionTest.Counted' },
      { stream_id: `${prefix}-b`, events: 2, last_type: 'ProjectionTest.Counted' },
    ]);
    await assertRebuildEqualsLive(env.db, env.store, v2);

    // A process still running version 1 leaves the newer tables alone (the version 2 projector
    // is stopped first: the event appended here is its to apply).
    await projector.stop();
    projector = null;
    const stale = new Projector(env.db, env.store, [streamCounts(name, 1)]);
    await appendCounted(env.store, [`${prefix}-a`], 1);
    await stale.catchUpOnce();
    expect((await stale.status())[0]).to.include({ state: 'superseded' });
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, name, prefix)).to.deep.equal({
      [`${prefix}-a`]: 2,
      [`${prefix}-b`]: 2,
    });
  });

  it('drops a start-up rebuild the database cut short (a lock past lock_timeout), begins it again and swaps it in', async () => {
    const prefix = uniqueName('cut');
    const name = uniqueName('log');
    const gate = uniqueName('gate');
    await env.db.schema.createTable(gate, (t) => t.integer('a'));
    await migrateAtHead(env.db, [gatedLog(name, gate, 1).projection]);
    const appended = await appendCounted(env.store, [`${prefix}-a`], 3);
    const v2 = gatedLog(name, gate, 2);
    await migrateProjections(env.db, [v2.projection]);
    const logged = new PassThrough();
    const printed = collect(logged);
    const holder = await env.db.transaction();
    try {
      await holder.raw('lock table ?? in access exclusive mode', [gate]);
      projector = new Projector(env.db, env.store, [v2.projection], { logger: pino({ level: 'error' }, logged) });
      projector.start();
      await until(() => printed().includes('rebuild of outdated projections failed'), 10_000);
      const failure = JSON.parse(printed().split('\n')[0]!) as { again: boolean; err: { code: string } };
      expect(failure).to.deep.include({ again: true });
      expect(failure.err).to.include({ code: '55P03' });
      expect((await projector.status())[0]).to.include({ state: 'awaiting_rebuild' });
      const { rows: copies } = await env.db.raw('select 1 from pg_namespace where nspname = ?', [
        rebuildSchemaName(name),
      ]);
      expect(copies, 'the failed build gave its copy of the tables back').to.deep.equal([]);
      await holder.commit();
      await waitForCaughtUp(projector, appended);
      expect((await readCheckpoints(env.db)).get(name)).to.include({ version: 2 });
      const own = await readOwnEvents(env.db, prefix);
      expect(Object.fromEntries(await applicationsOf(env.db, READ_MODEL_SCHEMA, name, prefix))).to.deep.equal(
        Object.fromEntries(own.map((e) => [e.id, 1])),
      );
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
      await projector?.stop();
      projector = null;
      await env.db.schema.dropTable(gate);
    }
  });

  it('recreates the views over the swapped tables with their options and grants', async () => {
    const prefix = uniqueName('views');
    const counts = streamCounts(uniqueName('counts'));
    const viewSchema = uniqueName('test_views');
    const role = uniqueName('test_reader');
    await migrateAtHead(env.db, [counts]);
    // Live first: the rebuild then surely sees these appends.
    await catchUpTo(env.db, env.store, [counts], await appendCounted(env.store, [`${prefix}-a`], 3));
    await env.db.raw('create schema ??', [viewSchema]);
    await env.db.raw('create role ?? nologin', [role]);
    try {
      // The jsonb '?' operator checks that a definition's question marks survive the swap.
      await env.db.raw(
        `create view ??.by_stream with (security_barrier = true) as select stream_id, events from ??.?? where jsonb_build_object(stream_id, 1) \\? stream_id`,
        [viewSchema, READ_MODEL_SCHEMA, counts.name],
      );
      await env.db.raw('create view ??.totals as select sum(events) as events from ??.by_stream', [
        viewSchema,
        viewSchema,
      ]);
      await env.db.raw('grant select on ??.by_stream, ??.totals to ??', [viewSchema, viewSchema, role]);

      await rebuildProjection(env.db, env.store, counts);

      const { rows } = await env.db.raw(
        `select c.relname, c.reloptions, has_table_privilege(?, c.oid, 'select') as readable
         from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? order by c.relname`,
        [role, viewSchema],
      );
      expect(rows).to.deep.equal([
        { relname: 'by_stream', reloptions: ['security_barrier=true'], readable: true },
        { relname: 'totals', reloptions: null, readable: true },
      ]);
      const viewed = await env.db
        .withSchema(viewSchema)
        .table('by_stream')
        .where('stream_id', `${prefix}-a`)
        .select('events');
      expect(viewed).to.deep.equal([{ events: 3 }]);
    } finally {
      await env.db.raw('drop schema ?? cascade', [viewSchema]);
      await env.db.raw('drop role ??', [role]);
    }
  });

  it('gives the tables it builds statistics as they fill', async () => {
    const counts = streamCounts(uniqueName('counts'));
    await migrateAtHead(env.db, [counts]);
    await appendCounted(env.store, [`${uniqueName('stats')}-a`, `${uniqueName('stats')}-b`], 3);

    // read while it builds (the swap analyzes anyway): a never analyzed table has reltuples -1
    const seen: Array<Promise<number>> = [];
    await rebuildProjection(env.db, env.store, counts, {
      analyzeAfter: 2,
      batchSize: 1,
      onProgress: () =>
        void seen.push(
          env.db
            .raw('select reltuples from pg_class where oid = ?::regclass', [
              `${rebuildSchemaName(counts.name)}.${counts.name}`,
            ])
            .then(({ rows }) => Number(rows[0].reltuples))
            // the last ones may run after the swap moved the table
            .catch(() => -1),
        ),
    });
    expect(Math.max(...(await Promise.all(seen)))).to.be.at.least(2);
  });

  it('swaps in a projection whose tables reference each other (a foreign key)', async () => {
    const prefix = uniqueName('fk');
    const name = uniqueName('streams');
    const linked: Projection = {
      name,
      version: 1,
      handles: [COUNTED],
      // the referenced table first: dropped on its own, it would refuse while the other refers to it
      tables: [name, `${name}_events`],
      async createTables(db, schema) {
        await db.schema.withSchema(schema).createTable(name, (t) => t.text('stream_id').primary());
        await db.schema.withSchema(schema).createTable(`${name}_events`, (t) => {
          t.uuid('event_id').primary();
          t.text('stream_id').notNullable().references('stream_id').inTable(`${schema}.${name}`);
        });
      },
      async apply(trx, event, schema) {
        await trx.withSchema(schema).table(name).insert({ stream_id: event.streamId }).onConflict().ignore();
        await trx
          .withSchema(schema)
          .table(`${name}_events`)
          .insert({ event_id: event.id, stream_id: event.streamId })
          .onConflict()
          .ignore();
      },
    };
    await migrateAtHead(env.db, [linked]);
    const appended = await appendCounted(env.store, [`${prefix}-a`, `${prefix}-b`], 2);
    await catchUpTo(env.db, env.store, [linked], appended);

    await rebuildProjection(env.db, env.store, linked);

    const rows = await env.db
      .withSchema(READ_MODEL_SCHEMA)
      .table(`${name}_events`)
      .where('stream_id', 'like', `${prefix}-%`)
      .select('stream_id')
      .orderBy('stream_id');
    expect(rows.map((r: { stream_id: string }) => r.stream_id)).to.deep.equal([
      `${prefix}-a`,
      `${prefix}-a`,
      `${prefix}-b`,
      `${prefix}-b`,
    ]);
  });

  it('swaps in tables vacuumed and analyzed', async () => {
    const prefix = uniqueName('compact');
    const counts = streamCounts(uniqueName('counts'));
    await migrateAtHead(env.db, [counts]);
    await appendCounted(env.store, [`${prefix}-a`, `${prefix}-b`], 3);
    await rebuildProjection(env.db, env.store, counts);
    // a table never vacuumed nor analyzed has reltuples -1
    const { rows } = await env.db.raw('select c.reltuples from pg_class c where c.oid = ?::regclass', [
      `${READ_MODEL_SCHEMA}.${counts.name}`,
    ]);
    expect(rows[0].reltuples).to.be.greaterThan(0);
  });

  it('rewrites only the rebuilt tables the build left full of dead versions, and vacuums and analyzes each', async () => {
    const schema = uniqueName('compact');
    // one connection: its statistics are flushed before the counts are read (pg_stat_force_next_flush)
    const db = createDb(process.env.DATABASE_URL!, { min: 1, max: 1 });
    try {
      await db.raw('create schema ??', [schema]);
      for (const t of ['churned', 'appended']) {
        await db.raw('create table ??.?? (id int primary key, v int)', [schema, t]);
        await db.raw('insert into ??.?? select n, 0 from generate_series(1, 2000) n', [schema, t]);
      }
      // a rollup rewritten once per batch: 2,000 dead versions of 2,000 rows; 300 deleted of the other 2,000
      for (let i = 0; i < 2; i++) await db.raw('update ??.churned set v = v + 1 where id % 2 = 0', [schema]);
      await db.raw('delete from ??.appended where id <= 300', [schema]);
      await db.raw('select pg_stat_force_next_flush()');
      await db.raw('select 1');
      const state = async () =>
        (
          await db.raw(
            `select relname, pg_relation_filenode(oid) as filenode, relallvisible, reltuples from pg_class
              where relnamespace = ?::regnamespace and relkind = 'r' order by relname`,
            [schema],
          )
        ).rows as { relname: string; filenode: number; relallvisible: number; reltuples: number }[];
      const before = await state();
      await compactTables(db, schema, ['churned', 'appended']);
      const after = await state();
      expect(after.map((t) => t.relname)).to.deep.equal(['appended', 'churned']);
      expect(after[0]!.filenode, '300 dead of 1,700 is under a fifth: vacuumed in place').to.equal(before[0]!.filenode);
      expect(after[1]!.filenode, '2,000 dead of 2,000: rewritten').to.not.equal(before[1]!.filenode);
      for (const t of after) {
        expect(t.relallvisible, `${t.relname} vacuumed`).to.be.greaterThan(0);
        expect(t.reltuples, `${t.relname} analyzed`).to.be.greaterThan(0);
      }
    } finally {
      await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    }
  });

  it('refuses to run two rebuilds of one projection at once', async () => {
    const counts = streamCounts(uniqueName('counts'));
    await migrateProjections(env.db, [counts]);
    await withRebuildLock(env.db, counts.name, async () => {
      expect(await rejection(rebuildProjection(env.db, env.store, counts))).to.be.instanceOf(RebuildInProgressError);
    });
  });

  describe('the rebuild command', () => {
    it('prints plain progress lines when not on a terminal, and rebuilds every projection with --all', async () => {
      const prefix = uniqueName('cmd');
      const counts = streamCounts(uniqueName('counts'));
      const log = applyLog(uniqueName('log'));
      await migrateAtHead(env.db, [counts, log]);
      await catchUpTo(env.db, env.store, [counts, log], await appendCounted(env.store, [`${prefix}-a`], 3));
      const output = new PassThrough();
      const printed = collect(output);

      await runRebuildCommand(['--all'], {
        db: env.db,
        store: env.store,
        projections: [counts, log],
        logger: pino({ level: 'silent' }),
        output,
      });

      for (const p of [counts.name, log.name]) {
        const lines = printed()
          .split('\n')
          .filter((l) => l.startsWith(`rebuild ${p}: `));
        expect(lines[0]).to.match(/: started, \d+ events in the log$/);
        const progress = lines.slice(1, -1);
        expect(progress).to.not.be.empty;
        for (const l of progress) expect(l).to.match(/: \d+\/\d+ events, \d+ events\/s, ETA (\?|\d+s|\d+m\d+s)$/);
        expect(lines.at(-1)).to.match(/: swapped in, \d+ events$/);
      }
      expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal({ [`${prefix}-a`]: 3 });
      expect([...(await applicationsOf(env.db, READ_MODEL_SCHEMA, log.name, prefix)).values()]).to.deep.equal([
        1, 1, 1,
      ]);
    });

    it('--all rebuilds two at a time; a failure lets the other finish, starts no more, and is thrown', async () => {
      const prefix = uniqueName('jobs');
      // once migrated, fails at once (its tables can't be made again), long before the other can finish
      const log = applyLog(uniqueName('failing'));
      let broken = false;
      const failing: Projection = {
        ...log,
        createTables: (db, schema) =>
          broken ? Promise.reject(new Error('no tables for this one')) : log.createTables(db, schema),
      };
      const counts = streamCounts(uniqueName('counts'));
      const later = applyLog(uniqueName('later'));
      await migrateAtHead(env.db, [failing, counts, later]);
      broken = true;
      await appendCounted(env.store, [`${prefix}-a`], 2);
      const output = new PassThrough();
      const printed = collect(output);

      const err = await rejection(
        runRebuildCommand(['--all'], {
          db: env.db,
          store: env.store,
          projections: [failing, counts, later],
          logger: pino({ level: 'silent' }),
          output,
        }),
      );

      expect((err as Error).message).to.equal('no tables for this one');
      const lines = printed().split('\n');
      // both under way before either is done
      expect(lines.slice(0, 2).map((l) => l.split(':')[0])).to.have.members([
        `rebuild ${failing.name}`,
        `rebuild ${counts.name}`,
      ]);
      expect(lines.filter((l) => l.startsWith(`rebuild ${counts.name}: swapped in`))).to.have.length(1);
      expect(lines.filter((l) => l.startsWith(`rebuild ${failing.name}: swapped in`))).to.be.empty;
      expect(
        lines.filter((l) => l.startsWith(`rebuild ${later.name}`)),
        'not started',
      ).to.be.empty;
      expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal({ [`${prefix}-a`]: 2 });
    });

    it('--all starts the projections with the largest live tables first', async () => {
      const [small, none, large] = [
        applyLog(uniqueName('small')),
        applyLog(uniqueName('none')),
        applyLog(uniqueName('large')),
      ];
      await migrateAtHead(env.db, [small, none, large]);
      const rows = (n: number) =>
        Array.from({ length: n }, () => ({
          event_id: randomUUID(),
          stream_id: 'padding',
          commit_position: 0,
          prepare_position: 0,
        }));
      await env.db.withSchema(READ_MODEL_SCHEMA).table(small.name).insert(rows(10));
      await env.db.withSchema(READ_MODEL_SCHEMA).table(large.name).insert(rows(5_000));
      await env.db.withSchema(READ_MODEL_SCHEMA).table(none.name).truncate();
      const output = new PassThrough();
      const printed = collect(output);

      await runRebuildCommand(['--all'], {
        db: env.db,
        store: env.store,
        projections: [none, small, large],
        logger: pino({ level: 'silent' }),
        output,
      });

      const started = printed()
        .split('\n')
        .filter((l) => l.endsWith('events in the log'))
        .map((l) => l.split(':')[0]);
      expect(started).to.deep.equal([`rebuild ${large.name}`, `rebuild ${small.name}`, `rebuild ${none.name}`]);
    });

    it('draws a progress bar on a terminal', async () => {
      const counts = streamCounts(uniqueName('counts'));
      await migrateProjections(env.db, [counts]);
      await appendCounted(env.store, [`${uniqueName('bar')}-a`], 2);
      // a terminal as wide as the bar's line: the last redraw is cut at the terminal's width
      const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
      const drawn = collect(terminal);

      await runRebuildCommand([counts.name], {
        db: env.db,
        store: env.store,
        projections: [counts],
        logger: pino({ level: 'silent' }),
        output: terminal,
      });

      const last = drawn().split(counts.name).at(-1)!;
      expect(last).to.match(/100% \| (\d+)\/\1 events \| \d+ events\/s \| ETA (\?|\d+s|\d+m\d+s) \|/);
    });

    it('answers bad arguments with a usage error naming the projections', async () => {
      const deps = {
        db: env.db,
        store: env.store,
        projections: [streamCounts('some_counts')],
        logger: pino({ level: 'silent' }),
      };
      for (const argv of [[], ['nope'], ['some_counts', 'extra']]) {
        const err = await rejection(runRebuildCommand(argv, deps));
        expect(err).to.be.instanceOf(UsageError);
        expect((err as Error).message).to.contain('some_counts');
      }
    });
  });
});
