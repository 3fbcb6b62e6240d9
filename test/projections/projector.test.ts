import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  comparePositions,
  type AppendResult,
  type EventStore,
  type ReadTypesOptions,
  type RecordedEvent,
} from '../../src/eventstore/port.js';
import { readCheckpoints } from '../../src/projections/checkpoints.js';
import { READ_MODEL_SCHEMA, type Projection } from '../../src/projections/projection.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import { Projector, ProjectionsFailedError, type ProjectorOptions } from '../../src/projections/projector.js';
import { migrateProjections } from '../../src/projections/schema.js';
import { eventually } from '../support/processes.js';
import { catchUpTo, waitForCaughtUp } from '../support/projections.js';
import {
  appendConcurrently,
  appendCounted,
  applicationsOf,
  COUNTED,
  applyLog,
  gatedLog,
  countsOf,
  lastPosition,
  migrateAtHead,
  openEnv,
  readOwnEvents,
  rejection,
  streamCounts,
  uniqueName,
  type TestEnv,
} from './fixtures.js';

describe('Projector', () => {
  let env: TestEnv;
  const running: Projector[] = [];
  const started = (p: Projector) => (running.push(p), p.start(), p);

  before(async () => {
    env = await openEnv();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop()));
  });
  after(async () => {
    await env.close();
  });

  /**
   * Runs `test` with two started projectors of the (migrated) projections `make` returns, as two
   * processes would run them (the second on connections of its own); both are stopped after.
   */
  const withTwo = async (
    make: () => Projection[],
    options: ProjectorOptions,
    test: (first: Projector, second: Projector) => Promise<void>,
    second: ProjectorOptions = options,
  ) => {
    const other = await openEnv();
    try {
      await test(
        started(new Projector(env.db, env.store, make(), options)),
        started(new Projector(other.db, other.store, make(), second)),
      );
    } finally {
      await Promise.all(running.splice(0).map((p) => p.stop()));
      await other.close();
    }
  };
  /**
   * Appends events of a type no test projection handles, to streams of `prefix`, until stopped:
   * between a projection's own events, reads that find none of its own.
   */
  const appendUnhandled = (prefix: string) => {
    let appending = true;
    const done = (async () => {
      for (let i = 0; appending; i++)
        await env.store.appendToStream(`${prefix}-other-${i % 4}`, [{ type: 'ProjectionTest.Unhandled', data: {} }]);
    })();
    return { appending: () => appending, stop: () => ((appending = false), done) };
  };
  /** The apply-log table `name` holds each of `own` exactly once. */
  const expectEachOnce = async (name: string, prefix: string, own: readonly { id: string }[]) =>
    expect(Object.fromEntries(await applicationsOf(env.db, READ_MODEL_SCHEMA, name, prefix))).to.deep.equal(
      Object.fromEntries(own.map((e) => [e.id, 1])),
    );

  it('catches up from position zero, then follows appends live', async () => {
    const prefix = uniqueName('cu');
    const counts = streamCounts(uniqueName('counts'));
    const backlog = await appendCounted(env.store, [`${prefix}-a`, `${prefix}-b`], 60);
    await migrateProjections(env.db, [counts]);

    const projector = started(new Projector(env.db, env.store, [counts], { batchSize: 100 }));
    await waitForCaughtUp(projector, backlog);
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal({
      [`${prefix}-a`]: 60,
      [`${prefix}-b`]: 60,
    });

    const live = await appendCounted(env.store, [`${prefix}-b`, `${prefix}-c`], 2);
    await waitForCaughtUp(projector, live);
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal({
      [`${prefix}-a`]: 60,
      [`${prefix}-b`]: 62,
      [`${prefix}-c`]: 2,
    });
    const [status] = await projector.status();
    expect(status).to.include({ name: counts.name, version: 1, state: 'running' });
    expect(comparePositions(status!.position!, lastPosition(live))).to.be.at.least(0);
  });

  /**
   * A projection that records, for each event of `type`, what `expression` says in the batch's
   * transaction; not idempotent, so it shows an event applied twice. `failOn` makes apply fail in
   * the database, which aborts its transaction.
   */
  const recorder = (
    name: string,
    expression: string,
    { type = COUNTED, failOn }: { type?: string; failOn?: (e: RecordedEvent) => boolean } = {},
  ): Projection => ({
    name,
    version: 1,
    handles: [type],
    tables: [name],
    async createTables(db, schema) {
      await db.schema
        .withSchema(schema)
        .createTable(name, (t) => (t.uuid('event_id'), t.text('stream_id'), t.text('value')));
    },
    async apply(trx, event, schema) {
      if (failOn?.(event)) await trx.raw('select 1 / 0');
      await trx.raw(`insert into ??.?? values (?, ?, (${expression})::text)`, [schema, name, event.id, event.streamId]);
    },
  });
  /** A recorder of COUNTED events, migrated. */
  const recording = async (name: string, expression: string): Promise<Projection> => {
    const projection = recorder(name, expression);
    await migrateProjections(env.db, [projection]);
    return projection;
  };
  const recorded = async (name: string, stream: string): Promise<string[]> =>
    (await env.db.withSchema(READ_MODEL_SCHEMA).table(name).where({ stream_id: stream })).map(
      (r: { value: string }) => r.value,
    );

  it('appends heard within coalesceMs of a wake-up share the next one: one batch takes what came meanwhile', async () => {
    // the transaction each event was applied in: one per batch
    const batches = await recording(uniqueName('coalesced'), 'txid_current()');
    // polls far apart: only the append wake-ups move it
    const projector = started(new Projector(env.db, env.store, [batches], { coalesceMs: 2_000, pollMs: 30_000 }));
    await projector.whenCaughtUp();
    const stream = uniqueName('heard');
    for (let i = 0; i < 6; i++) {
      await env.store.appendToStream(stream, [{ type: COUNTED, data: { i } }]);
      await new Promise((r) => setTimeout(r, 25));
    }
    const txs = () => recorded(batches.name, stream);
    await eventually(async () => ((await txs()).length === 6 ? true : undefined), 'the six events applied', 10_000);
    // the first append woke it at once; the five heard within 2 s of that went in one batch
    expect(new Set(await txs()).size).to.equal(2);
  });

  it('a batch commits without waiting for the WAL flush, in its own transaction only', async () => {
    const settings = await recording(uniqueName('async_commit'), "current_setting('synchronous_commit')");
    const projector = started(new Projector(env.db, env.store, [settings]));
    const stream = uniqueName('async');
    const appended = await env.store.appendToStream(stream, [{ type: COUNTED, data: {} }]);
    await projector.whenCaughtUp(appended.position);
    expect(await recorded(settings.name, stream)).to.deep.equal(['off']);
    // the pool's connections (the batch's among them) are back to the server's setting
    const shown = await Promise.all(Array.from({ length: 4 }, () => env.db.raw('show synchronous_commit')));
    expect(shown.map((r) => r.rows[0].synchronous_commit)).to.deep.equal(['on', 'on', 'on', 'on']);
  });

  it('whenCaughtUp() without a position waits for everything readAll showed before the call', async () => {
    const prefix = uniqueName('head');
    const counts = streamCounts(uniqueName('counts'));
    await migrateAtHead(env.db, [counts]);
    await appendCounted(env.store, [`${prefix}-a`], 30);
    let head = (await readCheckpoints(env.db)).get(counts.name)!.position;
    for (
      let page = await env.store.readAll({ after: head, limit: 1000 });
      page.length > 0;
      page = await env.store.readAll({ after: head, limit: 1000 })
    ) {
      head = page[page.length - 1]!.position;
    }

    const projector = started(new Projector(env.db, env.store, [counts], { batchSize: 7 }));
    await projector.whenCaughtUp();
    const [status] = await projector.status();
    expect(comparePositions(status!.position!, head!)).to.be.at.least(0);
  });

  it('advances the checkpoint of a projection past events it does not handle', async () => {
    const prefix = uniqueName('skip');
    const idle = { ...streamCounts(uniqueName('idle')), handles: ['ProjectionTest.NeverAppended'] };
    await migrateAtHead(env.db, [idle]);
    const appended = await appendCounted(env.store, [`${prefix}-a`], 3);

    await catchUpTo(env.db, env.store, [idle], appended, { batchSize: 2 });
    const checkpoint = (await readCheckpoints(env.db)).get(idle.name)!;
    expect(comparePositions(checkpoint.position!, lastPosition(appended))).to.be.at.least(0);
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, idle.name, prefix)).to.deep.equal({});
  });

  it('applies only the events its filter keeps: caught up, live beside a projection without one, and rebuilt', async () => {
    const prefix = uniqueName('filtered');
    const kept: Projection = { ...applyLog(uniqueName('kept')), filter: { field: 'part', values: ['a'] } };
    const all = applyLog(uniqueName('all'));
    await migrateAtHead(env.db, [kept, all]);
    const append = async (n: number) => {
      const out: Array<{ id: string; part: string; appended: AppendResult }> = [];
      for (let i = 0; i < n; i++)
        for (const part of ['a', 'b']) {
          const id = randomUUID();
          const appended = await env.store.appendToStream(`${prefix}-${part}`, [
            { id, type: COUNTED, data: { part, i } },
          ]);
          out.push({ id, part, appended });
        }
      return out;
    };
    const backlog = await append(5);
    const projector = started(new Projector(env.db, env.store, [kept, all], { batchSize: 3 }));
    await waitForCaughtUp(
      projector,
      backlog.map((e) => e.appended),
    );
    const live = await append(3);
    await waitForCaughtUp(
      projector,
      live.map((e) => e.appended),
    );
    const once = (events: ReadonlyArray<{ id: string }>) => Object.fromEntries(events.map((e) => [e.id, 1]));
    const applied = async (p: Projection) =>
      Object.fromEntries(await applicationsOf(env.db, READ_MODEL_SCHEMA, p.name, prefix));
    const own = [...backlog, ...live];
    expect(await applied(kept)).to.deep.equal(once(own.filter((e) => e.part === 'a')));
    expect(await applied(all)).to.deep.equal(once(own));

    await projector.stop();
    await rebuildProjection(env.db, env.store, kept);
    expect(await applied(kept)).to.deep.equal(once(own.filter((e) => e.part === 'a')));
  });

  it('live projections share reads only for what one of them standing there wants: nobody loads pages no filter keeps', async () => {
    const prefix = uniqueName('shared');
    const NOTED = `Noted_${prefix}`;
    const kept: Projection = { ...applyLog(uniqueName('kept')), filter: { field: 'part', values: ['a'] } };
    const noted: Projection = { ...applyLog(uniqueName('noted')), handles: [NOTED] };
    await migrateAtHead(env.db, [kept, noted]);
    // the real store, with each read's events noted as they come back
    const loaded: RecordedEvent[] = [];
    const asked: ReadTypesOptions[] = [];
    const store: EventStore = Object.create(env.store, {
      readAllOfTypes: {
        value: async (options: ReadTypesOptions) => {
          asked.push(options);
          const read = await env.store.readAllOfTypes(options);
          loaded.push(...read.events);
          return read;
        },
      },
    });
    const projector = started(new Projector(env.db, store, [kept, noted], { batchSize: 3, coalesceMs: 0 }));
    await waitForCaughtUp(projector, [await env.store.appendToStream(`start-${prefix}`, [{ type: NOTED, data: {} }])]);
    const appended: Array<{ id: string; part: string; appended: AppendResult }> = [];
    for (let i = 0; i < 12; i++)
      for (const [type, part] of [
        [COUNTED, 'a'],
        [COUNTED, 'b'],
        [NOTED, 'n'],
      ] as const) {
        const id = randomUUID();
        const result = await env.store.appendToStream(`${prefix}-${part}`, [
          { id, type, data: { part, i, rows: 'x'.repeat(2_000) } },
        ]);
        appended.push({ id, part, appended: result });
      }
    await waitForCaughtUp(
      projector,
      appended.map((e) => e.appended),
    );
    const ids = (part: string) => appended.filter((e) => e.part === part).map((e) => e.id);
    const applied = async (p: Projection) =>
      [...(await applicationsOf(env.db, READ_MODEL_SCHEMA, p.name, prefix)).keys()].sort();
    expect(await applied(kept)).to.deep.equal(ids('a').sort());
    expect(await applied(noted)).to.deep.equal(ids('n').sort());
    const loadedIds = new Set(loaded.map((e) => e.id));
    expect(
      ids('b').filter((id) => loadedIds.has(id)),
      'pages of a part no filter keeps',
    ).to.deep.equal([]);
    // and the two standing together shared reads, filtered for the one that filters
    const shared = asked.filter((o) => o.types.length === 2);
    expect(shared, 'reads made for both').to.not.be.empty;
    for (const o of shared) expect(o.filter).to.deep.equal({ field: 'part', values: ['a'], types: [COUNTED] });
  });

  it('a live projection reaching a position after a read made there without it reads on its own', async () => {
    const prefix = uniqueName('covers');
    const NOTED = `Noted_${prefix}`;
    const kept: Projection = { ...applyLog(uniqueName('kept')), filter: { field: 'part', values: ['a'] } };
    const base: Projection = { ...applyLog(uniqueName('noted')), handles: [NOTED] };
    // the noted projection's apply of `held` waits until the test lets it go
    let held = '';
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const noted: Projection = {
      ...base,
      async apply(trx, event, schema) {
        if (event.id === held) await gate;
        await base.apply(trx, event, schema);
      },
    };
    await migrateAtHead(env.db, [kept, noted]);
    const asked: ReadTypesOptions[] = [];
    const store: EventStore = Object.create(env.store, {
      readAllOfTypes: {
        value: (options: ReadTypesOptions) => (asked.push(options), env.store.readAllOfTypes(options)),
      },
    });
    const projector = started(new Projector(env.db, store, [kept, noted], { coalesceMs: 0, pollMs: 60_000 }));
    await waitForCaughtUp(projector, [await env.store.appendToStream(`start-${prefix}`, [{ type: NOTED, data: {} }])]);
    const pair = () => [
      { id: randomUUID(), type: COUNTED, data: { part: 'a' } },
      { id: randomUUID(), type: NOTED, data: { part: 'n' } },
    ];
    const reached = async (p: Projection, at: AppendResult) =>
      eventually(
        async () => {
          const cp = (await readCheckpoints(env.db)).get(p.name)!.position;
          return cp && comparePositions(cp, at.position) >= 0 ? true : undefined;
        },
        `${p.name} past the append`,
        10_000,
      );
    const from = asked.length;
    /** where the reads made since `from` for exactly these types began */
    const readsFor = (type: string) =>
      asked
        .slice(from)
        .filter((o) => o.types.length === 1 && o.types[0] === type)
        .map((o) => `${o.after?.commit}/${o.after?.prepare}`);
    // read together; the noted projection then holds in its batch while the kept one moves on alone
    const first = pair();
    held = first[1]!.id;
    await reached(kept, await env.store.appendToStream(`${prefix}-1`, first));
    const second = pair();
    const y = await env.store.appendToStream(`${prefix}-2`, second);
    await reached(kept, y);
    const keptAlone = readsFor(COUNTED);
    expect(keptAlone, 'reads the kept projection made alone while the noted one held').to.not.deep.equal([]);
    release();
    // polled, not whenCaughtUp: a wake-up would start a new read round and take the case away
    await reached(noted, y);
    // the noted projection, reaching where the kept one had read alone, read its own types there
    expect(readsFor(NOTED).some((at) => keptAlone.includes(at))).to.equal(true);
    const appliedBy = async (p: Projection) =>
      [...(await applicationsOf(env.db, READ_MODEL_SCHEMA, p.name, prefix)).keys()].sort();
    expect(await appliedBy(noted)).to.deep.equal([first[1]!.id, second[1]!.id].sort());
    expect(await appliedBy(kept)).to.deep.equal([first[0]!.id, second[0]!.id].sort());
  });

  it('catchUpOnce applies what was appended since its last call, however soon after', async () => {
    const prefix = uniqueName('again');
    const counts = streamCounts(uniqueName('counts'));
    await migrateAtHead(env.db, [counts]);
    const projector = new Projector(env.db, env.store, [counts], { pollMs: 60_000 });
    await appendCounted(env.store, [`${prefix}-a`], 3);
    await projector.catchUpOnce();
    await appendCounted(env.store, [`${prefix}-a`], 2);
    // again until applied: another file's append in flight may hide these a moment (the head would not)
    const applied = await eventually(
      async () => {
        await projector.catchUpOnce();
        const now = await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix);
        return now[`${prefix}-a`] === 5 ? now : undefined;
      },
      'the later appends',
      10_000,
    );
    expect(applied).to.deep.equal({ [`${prefix}-a`]: 5 });
  });

  it('a projection in the middle of a slow batch holds no other back', async () => {
    const prefix = uniqueName('slow');
    const counts = streamCounts(uniqueName('counts'));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const base = applyLog(uniqueName('slowlog'));
    // a backfill's heavy batch: its apply waits until the test lets it go
    const slow = {
      ...base,
      async apply(...args: Parameters<typeof base.apply>) {
        await gate;
        await base.apply(...args);
      },
    };
    await migrateAtHead(env.db, [slow, counts]);
    const projector = started(new Projector(env.db, env.store, [slow, counts], { batchSize: 50, pollMs: 50 }));
    const appended = await appendCounted(env.store, [`${prefix}-a`], 5);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const at = (await readCheckpoints(env.db)).get(counts.name)!.position;
      if (at && comparePositions(at, lastPosition(appended)) >= 0) break;
      if (Date.now() > deadline) throw new Error(`${counts.name} waited for the slow projection's batch`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal({ [`${prefix}-a`]: 5 });
    expect(
      (await applicationsOf(env.db, READ_MODEL_SCHEMA, slow.name, prefix)).size,
      'the slow batch is open',
    ).to.equal(0);
    release();
    await waitForCaughtUp(projector, appended);
    expect([...(await applicationsOf(env.db, READ_MODEL_SCHEMA, slow.name, prefix)).values()]).to.deep.equal([
      1, 1, 1, 1, 1,
    ]);
  });

  it('never moves the checkpoint past an event whose apply failed, and keeps nothing of the failed batch', async () => {
    const prefix = uniqueName('crash');
    const name = uniqueName('log');
    let poisonedId = '';
    const failing = applyLog(name, (e) => e.id === poisonedId);
    const counts = streamCounts(uniqueName('counts'));
    await migrateAtHead(env.db, [failing, counts]);
    const appended = await appendCounted(env.store, [`${prefix}-a`], 20);
    const own = await readOwnEvents(env.db, prefix);
    const poisoned = own[14]!;
    poisonedId = poisoned.id;

    const projector = started(new Projector(env.db, env.store, [failing, counts], { batchSize: 4 }));
    expect(await rejection(waitForCaughtUp(projector, appended))).to.be.instanceOf(ProjectionsFailedError);
    const status = await projector.status();
    expect(status[0]).to.include({ name, state: 'failed' });
    expect(status[0]!.error).to.include({ eventId: poisoned.id });
    // The other projection is not stopped by this one's failure.
    expect(status[1]).to.include({ state: 'running' });
    // marked stopped where every process reads it (readers stop waiting for it), the other not
    const { rows: marks } = await env.db.raw(
      `select name, stopped_at is not null as stopped from ${READ_MODEL_SCHEMA}.projection_checkpoints where name = any(?) order by name = ? desc`,
      [[name, counts.name], name],
    );
    expect(marks).to.deep.equal([
      { name, stopped: true },
      { name: counts.name, stopped: false },
    ]);
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal({ [`${prefix}-a`]: 20 });

    const checkpoint = (await readCheckpoints(env.db)).get(name)!.position!;
    expect(comparePositions(checkpoint, poisoned.position), 'checkpoint before the failed event').to.equal(-1);
    const upToCheckpoint = own.filter((e) => comparePositions(e.position, checkpoint) <= 0);
    expect(upToCheckpoint, 'the batches before the failed one were committed').to.not.be.empty;
    await expectEachOnce(name, prefix, upToCheckpoint);

    // catchUpOnce (the CLIs' way) reports the same failure and changes nothing.
    const again = new Projector(env.db, env.store, [failing], { batchSize: 4 });
    expect(await rejection(again.catchUpOnce())).to.be.instanceOf(ProjectionsFailedError);
    expect((await readCheckpoints(env.db)).get(name)!.position).to.deep.equal(checkpoint);

    // Once the fold is fixed, a new projector resumes from the checkpoint: every event exactly once.
    await catchUpTo(env.db, env.store, [applyLog(name)], appended, { batchSize: 4 });
    await expectEachOnce(name, prefix, own);
  });

  it('applies each event exactly once with two projectors on one database', async () => {
    const prefix = uniqueName('two');
    const name = uniqueName('log');
    await migrateAtHead(env.db, [applyLog(name)]);
    // A backlog first, so both start racing for the same batches, then live appends.
    await appendConcurrently(env.store, `${prefix}-backlog`, 8, 30);
    await withTwo(
      () => [applyLog(name)],
      { batchSize: 7, pollMs: 20 },
      async (first, second) => {
        const appended = await appendConcurrently(env.store, `${prefix}-live`, 8, 30);
        await Promise.all([waitForCaughtUp(first, appended), waitForCaughtUp(second, appended)]);

        const own = await readOwnEvents(env.db, prefix);
        expect(own).to.have.length(480);
        await expectEachOnce(name, prefix, own);
      },
    );
  });

  it('applies each event exactly once through events it skips, with two projectors and catch-ups beside them', async () => {
    const prefix = uniqueName('skip');
    const name = uniqueName('log');
    const options = { batchSize: 5, pollMs: 20 };
    await migrateAtHead(env.db, [applyLog(name)]);
    await withTwo(
      () => [applyLog(name)],
      options,
      async (first, second) => {
        const unhandled = appendUnhandled(prefix);
        // catch-ups beside the running loops, as a CLI would on a started projector
        const catchUps = (async () => {
          while (unhandled.appending()) await first.catchUpOnce();
        })();
        const appended = await appendConcurrently(env.store, `${prefix}-own`, 6, 30);
        await Promise.all([unhandled.stop(), catchUps]);
        await Promise.all([waitForCaughtUp(first, appended), waitForCaughtUp(second, appended)]);

        const own = await readOwnEvents(env.db, `${prefix}-own`);
        expect(own).to.have.length(180);
        await expectEachOnce(name, prefix, own);
      },
      { ...options, persistSkippedMs: 30 },
    );
  });

  it('stops cleanly mid-stream: the checkpoint matches what was applied, and a restart finishes the rest', async () => {
    const prefix = uniqueName('stop');
    const name = uniqueName('log');
    await migrateAtHead(env.db, [applyLog(name)]);
    const appended = await appendConcurrently(env.store, prefix, 4, 50);
    const own = await readOwnEvents(env.db, prefix);

    const projector = started(new Projector(env.db, env.store, [applyLog(name)], { batchSize: 5 }));
    await projector.whenCaughtUp(own[99]!.position);
    await projector.stop();
    const checkpoint = (await readCheckpoints(env.db)).get(name)!.position!;
    expect(comparePositions(checkpoint, own[own.length - 1]!.position), 'stopped before the end').to.equal(-1);
    const upToCheckpoint = own.filter((e) => comparePositions(e.position, checkpoint) <= 0);
    await expectEachOnce(name, prefix, upToCheckpoint);

    await catchUpTo(env.db, env.store, [applyLog(name)], appended, { batchSize: 100 });
    await expectEachOnce(name, prefix, own);
  });

  /** Each event of type `type` with the transaction it was applied in. */
  const txLog = (name: string, type: string, failOn?: (e: RecordedEvent) => boolean): Projection =>
    recorder(name, 'txid_current()', { type, ...(failOn ? { failOn } : {}) });
  /** event id → the transactions txLog `name` applied it in */
  const txsOf = async (name: string): Promise<Map<string, string[]>> => {
    const rows: { event_id: string; value: string }[] = await env.db.withSchema(READ_MODEL_SCHEMA).table(name);
    const txs = new Map<string, string[]>();
    for (const r of rows) txs.set(r.event_id, [...(txs.get(r.event_id) ?? []), r.value]);
    return txs;
  };
  /** How many times each txLog of `logs` applied each event (event id → times, per log). */
  const timesApplied = async (logs: readonly Projection[]) =>
    Promise.all(
      logs.map(async (l) => Object.fromEntries([...(await txsOf(l.name))].map(([id, txs]) => [id, txs.length]))),
    );
  /**
   * Appends events of `type` one at a time, each waited for, until the txLogs `logs` applied one in
   * a single transaction; the transactions each event was applied in, per log, in append order.
   */
  const appendUntilJoint = async (projector: Projector, logs: readonly Projection[], type: string) => {
    const applied: string[][] = [];
    await eventually(
      async () => {
        const id = randomUUID();
        await projector.whenCaughtUp(
          (await env.store.appendToStream(`joint-${id}`, [{ id, type, data: {} }])).position,
        );
        const txs = await Promise.all(logs.map(async (l) => (await txsOf(l.name)).get(id)!));
        applied.push(txs.flat());
        return new Set(txs.flat()).size === 1 ? true : undefined;
      },
      'an event applied by all of them in one transaction',
      10_000,
    );
    return applied;
  };

  it('live projections standing together apply the batches of a wake-up in one transaction', async () => {
    const type = uniqueName('Joint');
    const logs = [0, 1, 2].map((i) => txLog(uniqueName(`joint${i}`), type));
    await migrateAtHead(env.db, logs);
    const projector = started(new Projector(env.db, env.store, logs, { coalesceMs: 0 }));
    await projector.whenCaughtUp();
    const applied = await appendUntilJoint(projector, logs, type);
    // the first batch each applied alone: how long one takes it was not known yet
    expect(new Set(applied[0]).size).to.equal(3);
    expect(applied.length, 'events appended until one was applied jointly').to.be.at.most(5);
    const status = await projector.status();
    expect(status.map((s) => s.state)).to.deep.equal(['running', 'running', 'running']);
  });

  it('a projection whose apply fails in a joint transaction fails alone: the others commit its batch and checkpoints', async () => {
    const type = uniqueName('JointFail');
    let poisoned = '';
    const failing = txLog(uniqueName('failing'), type, (e) => e.id === poisoned);
    const others = [txLog(uniqueName('ok1'), type), txLog(uniqueName('ok2'), type)];
    await migrateAtHead(env.db, [failing, ...others]);
    const projector = started(new Projector(env.db, env.store, [failing, ...others], { coalesceMs: 0 }));
    await projector.whenCaughtUp();
    await appendUntilJoint(projector, [failing, ...others], type);
    const before = await timesApplied([failing]);

    poisoned = randomUUID();
    const after = randomUUID();
    const appended = await env.store.appendToStream(`joint-${after}`, [
      { id: poisoned, type, data: {} },
      { id: after, type, data: {} },
    ]);
    expect(await rejection(projector.whenCaughtUp(appended.position))).to.be.instanceOf(ProjectionsFailedError);
    const [failed, ...running] = await projector.status();
    expect(failed).to.include({ state: 'failed' });
    expect(failed!.error).to.include({ eventId: poisoned });
    expect(comparePositions(failed!.position!, appended.position), 'checkpoint before the failed batch').to.equal(-1);
    expect(await timesApplied([failing]), 'nothing of the failed batch').to.deep.equal(before);
    for (const s of running) {
      expect(s.state).to.equal('running');
      expect(comparePositions(s.position!, appended.position)).to.equal(0);
    }
    const [ok1, ok2] = await timesApplied(others);
    expect(ok1).to.deep.equal({ ...before[0], [poisoned]: 1, [after]: 1 });
    expect(ok2).to.deep.equal(ok1);
  });

  it('applies each event exactly once with two projectors on one database whose live projections commit together', async () => {
    const prefix = uniqueName('twojoint');
    const type = uniqueName('TwoJoint');
    const names = [0, 1, 2].map((i) => uniqueName(`twojoint${i}`));
    const make = () => names.map((n) => txLog(n, type));
    await migrateAtHead(env.db, make());
    const options = { batchSize: 7, pollMs: 20 };
    await withTwo(
      make,
      options,
      async (first, second) => {
        const unhandled = appendUnhandled(prefix);
        const appended = (
          await Promise.all(
            Array.from({ length: 6 }, async (_, w) => {
              const results: AppendResult[] = [];
              for (let i = 0; i < 30; i++)
                results.push(
                  await env.store.appendToStream(`${prefix}-w${w}`, [
                    { type, data: { i } },
                    ...(i % 3 === 0 ? [{ type, data: { i, second: true } }] : []),
                  ]),
                );
              return results;
            }),
          )
        ).flat();
        await unhandled.stop();
        await Promise.all([waitForCaughtUp(first, appended), waitForCaughtUp(second, appended)]);
        // then one append at a time, each beside one of another type: both projectors live, their
        // joint claims racing for the same batches
        for (let i = 0; i < 30; i++) {
          appended.push(await env.store.appendToStream(`${prefix}-slow`, [{ type, data: { i } }]));
          await env.store.appendToStream(`${prefix}-other-slow`, [{ type: 'ProjectionTest.Unhandled', data: {} }]);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await Promise.all([waitForCaughtUp(first, appended), waitForCaughtUp(second, appended)]);

        const own = (await readOwnEvents(env.db, prefix)).filter((e) => !e.streamId.startsWith(`${prefix}-other`));
        expect(own).to.have.length(6 * 40 + 30);
        const once = Object.fromEntries(own.map((e) => [e.id, 1]));
        for (const times of await timesApplied(make())) expect(times).to.deep.equal(once);
        // and the three committed batches together
        const [a, b, c] = await Promise.all(names.map(async (n) => new Set([...(await txsOf(n)).values()].flat())));
        expect(
          [...a!].filter((tx) => b!.has(tx) && c!.has(tx)),
          'transactions of all three',
        ).to.not.be.empty;
      },
      { ...options, persistSkippedMs: 30 },
    );
  });

  it('an apply the database holds up (a lock past lock_timeout) is tried again, not stopped; it lands once the lock goes', async () => {
    const prefix = uniqueName('held');
    const name = uniqueName('log');
    const gate = uniqueName('gate');
    await env.db.schema.createTable(gate, (t) => t.integer('a'));
    const held = gatedLog(name, gate);
    await migrateAtHead(env.db, [held.projection]);
    const holder = await env.db.transaction();
    try {
      await holder.raw('lock table ?? in access exclusive mode', [gate]);
      const projector = started(new Projector(env.db, env.store, [held.projection], { batchSize: 4, pollMs: 50 }));
      const appended = await appendCounted(env.store, [`${prefix}-a`], 6);
      await eventually(async () => (held.tries() > 2 ? true : undefined), 'applies refused and begun again', 10_000);
      expect((await projector.status())[0]).to.include({ name, state: 'running' });
      expect(await applicationsOf(env.db, READ_MODEL_SCHEMA, name, prefix)).to.have.property('size', 0);
      await holder.commit();
      await waitForCaughtUp(projector, appended);
      await expectEachOnce(name, prefix, await readOwnEvents(env.db, prefix));
      expect((await projector.status())[0]).to.include({ state: 'running' });
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
      await env.db.schema.dropTable(gate);
    }
  });

  it('rejects whenCaughtUp when a projection fails, rather than waiting forever', async () => {
    const prefix = uniqueName('rej');
    const name = uniqueName('log');
    await migrateAtHead(env.db, [applyLog(name)]);
    const projector = started(new Projector(env.db, env.store, [applyLog(name, (e) => e.streamId.startsWith(prefix))]));
    const appended = await appendCounted(env.store, [`${prefix}-a`], 1);
    expect(await rejection(waitForCaughtUp(projector, appended))).to.be.instanceOf(ProjectionsFailedError);
    expect((await projector.status())[0]).to.include({ state: 'failed' });
  });
});
