import { expect } from 'chai';
import { comparePositions } from '../../src/eventstore/port.js';
import { readCheckpoints } from '../../src/projections/checkpoints.js';
import { READ_MODEL_SCHEMA } from '../../src/projections/projection.js';
import { Projector, ProjectionsFailedError } from '../../src/projections/projector.js';
import { migrateProjections } from '../../src/projections/schema.js';
import { waitForCaughtUp } from '../support/projections.js';
import {
  appendConcurrently,
  appendCounted,
  applicationsOf,
  applyLog,
  countsOf,
  lastPosition,
  migrateAtHead,
  openEnv,
  readOwnEvents,
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

  it('catches up from position zero, then follows appends live', async () => {
    const prefix = uniqueName('cu');
    const counts = streamCounts(uniqueName('counts'));
    await appendCounted(env.store, [`${prefix}-a`, `${prefix}-b`], 60);
    await migrateProjections(env.db, [counts]);

    const projector = started(new Projector(env.db, env.store, [counts], { batchSize: 50 }));
    await projector.whenCaughtUp();
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal({ [`${prefix}-a`]: 60, [`${prefix}-b`]: 60 });

    const live = await appendCounted(env.store, [`${prefix}-b`, `${prefix}-c`], 2);
    await waitForCaughtUp(projector, live);
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal({ [`${prefix}-a`]: 60, [`${prefix}-b`]: 62, [`${prefix}-c`]: 2 });
    const [status] = projector.status();
    expect(status).to.include({ name: counts.name, version: 1, state: 'running' });
    expect(comparePositions(status!.position!, lastPosition(live))).to.be.at.least(0);
  });

  it('advances the checkpoint of a projection past events it does not handle', async () => {
    const prefix = uniqueName('skip');
    const idle = { ...streamCounts(uniqueName('idle')), handles: ['ProjectionTest.NeverAppended'] };
    await migrateAtHead(env.db, [idle]);
    const appended = await appendCounted(env.store, [`${prefix}-a`], 3);

    await new Projector(env.db, env.store, [idle], { batchSize: 2 }).catchUpOnce();
    const checkpoint = (await readCheckpoints(env.db)).get(idle.name)!;
    expect(comparePositions(checkpoint.position!, lastPosition(appended))).to.be.at.least(0);
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, idle.name, prefix)).to.deep.equal({});
  });

  it('never moves the checkpoint past an event whose apply failed, and keeps nothing of the failed batch', async () => {
    const prefix = uniqueName('crash');
    const name = uniqueName('log');
    let poisonedId = '';
    const failing = applyLog(name, (e) => e.id === poisonedId);
    const counts = streamCounts(uniqueName('counts'));
    await migrateAtHead(env.db, [failing, counts]);
    await appendCounted(env.store, [`${prefix}-a`], 20);
    const own = await readOwnEvents(env.db, prefix);
    const poisoned = own[14]!;
    poisonedId = poisoned.id;

    const projector = new Projector(env.db, env.store, [failing, counts], { batchSize: 4 });
    const err = await projector.catchUpOnce().then(
      () => expect.fail('catchUpOnce should report the failed projection'),
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ProjectionsFailedError);
    const status = projector.status();
    expect(status[0]).to.include({ name, state: 'failed' });
    expect(status[0]!.error).to.include({ eventId: poisoned.id });
    // The other projection is not stopped by this one's failure.
    expect(status[1]).to.include({ state: 'running' });
    expect(await countsOf(env.db, READ_MODEL_SCHEMA, counts.name, prefix)).to.deep.equal({ [`${prefix}-a`]: 20 });

    const checkpoint = (await readCheckpoints(env.db)).get(name)!.position!;
    expect(comparePositions(checkpoint, poisoned.position), 'checkpoint before the failed event').to.equal(-1);
    const applied = await applicationsOf(env.db, READ_MODEL_SCHEMA, name, prefix);
    const upToCheckpoint = own.filter((e) => comparePositions(e.position, checkpoint) <= 0);
    expect(upToCheckpoint.length, 'the three batches before the failed one were committed').to.equal(12);
    expect(Object.fromEntries(applied)).to.deep.equal(Object.fromEntries(upToCheckpoint.map((e) => [e.id, 1])));

    // Once the fold is fixed, a new projector resumes from the checkpoint: every event exactly once.
    await new Projector(env.db, env.store, [applyLog(name)], { batchSize: 4 }).catchUpOnce();
    expect(Object.fromEntries(await applicationsOf(env.db, READ_MODEL_SCHEMA, name, prefix))).to.deep.equal(Object.fromEntries(own.map((e) => [e.id, 1])));
  });

  it('applies each event exactly once with two projectors on one database', async () => {
    const prefix = uniqueName('two');
    const name = uniqueName('log');
    await migrateAtHead(env.db, [applyLog(name)]);
    const other = await openEnv();
    try {
      const first = started(new Projector(env.db, env.store, [applyLog(name)], { batchSize: 7, pollMs: 20 }));
      const second = started(new Projector(other.db, other.store, [applyLog(name)], { batchSize: 7, pollMs: 20 }));
      const appended = await appendConcurrently(env.store, prefix, 8, 60);
      await Promise.all([waitForCaughtUp(first, appended), waitForCaughtUp(second, appended)]);

      const own = await readOwnEvents(env.db, prefix);
      expect(own).to.have.length(480);
      expect(Object.fromEntries(await applicationsOf(env.db, READ_MODEL_SCHEMA, name, prefix))).to.deep.equal(Object.fromEntries(own.map((e) => [e.id, 1])));
    } finally {
      await Promise.all(running.splice(0).map((p) => p.stop()));
      await other.close();
    }
  });

  it('stops cleanly mid-stream: the checkpoint matches what was applied, and a restart finishes the rest', async () => {
    const prefix = uniqueName('stop');
    const name = uniqueName('log');
    await migrateAtHead(env.db, [applyLog(name)]);
    await appendConcurrently(env.store, prefix, 4, 100);
    const own = await readOwnEvents(env.db, prefix);

    const projector = started(new Projector(env.db, env.store, [applyLog(name)], { batchSize: 5 }));
    await projector.whenCaughtUp(own[99]!.position);
    await projector.stop();
    const checkpoint = (await readCheckpoints(env.db)).get(name)!.position!;
    expect(comparePositions(checkpoint, own[own.length - 1]!.position), 'stopped before the end').to.equal(-1);
    const upToCheckpoint = own.filter((e) => comparePositions(e.position, checkpoint) <= 0);
    expect(Object.fromEntries(await applicationsOf(env.db, READ_MODEL_SCHEMA, name, prefix))).to.deep.equal(Object.fromEntries(upToCheckpoint.map((e) => [e.id, 1])));

    const restarted = started(new Projector(env.db, env.store, [applyLog(name)], { batchSize: 100 }));
    await restarted.whenCaughtUp();
    expect(Object.fromEntries(await applicationsOf(env.db, READ_MODEL_SCHEMA, name, prefix))).to.deep.equal(Object.fromEntries(own.map((e) => [e.id, 1])));
  });

  it('rejects whenCaughtUp when a projection fails, rather than waiting forever', async () => {
    const prefix = uniqueName('rej');
    const name = uniqueName('log');
    await migrateAtHead(env.db, [applyLog(name)]);
    const projector = started(new Projector(env.db, env.store, [applyLog(name, (e) => e.streamId.startsWith(prefix))]));
    const appended = await appendCounted(env.store, [`${prefix}-a`], 1);
    const err = await waitForCaughtUp(projector, appended).then(
      () => expect.fail('whenCaughtUp should reject'),
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ProjectionsFailedError);
    expect(projector.status()[0]).to.include({ state: 'failed' });
  });
});
