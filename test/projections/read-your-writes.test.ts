import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Position } from '../../src/eventstore/port.js';
import { claimBatches, markStopped, setCheckpoint } from '../../src/projections/checkpoints.js';
import type { Projection } from '../../src/projections/projection.js';
import {
  onlyStopped,
  projectionsBehind,
  projectionsToReach,
  rememberWrites,
} from '../../src/projections/read-your-writes.js';
import { openEnv, uniqueName, type TestEnv } from './fixtures.js';

// What a user's reads wait for (docs/decisions/084-read-your-writes.md), on the database: the
// furthest position kept per user and projection, and the projections still behind it. Only
// those this code runs at its version are waited for: a projection awaiting its rebuild stands
// still until the swap, so waiting on it would cost every call of the user the whole bound.

const TYPE = 'ReadBackTested';
const at = (commit: number, prepare = commit): Position => ({ commit: BigInt(commit), prepare: BigInt(prepare) });

function projection(name: string, version = 1, filter?: Projection['filter']): Projection {
  return {
    name,
    version,
    handles: [TYPE],
    ...(filter ? { filter } : {}),
    tables: [],
    createTables: async () => undefined,
    apply: async () => undefined,
  };
}

describe('read-your-writes: what a user waits for', () => {
  let env: TestEnv;

  before(async () => {
    env = await openEnv();
  });
  after(async () => {
    await env.close();
  });

  it('keeps the furthest position per projection that wants the events, by type and filter', () => {
    const all = projection(uniqueName('all'));
    const one = projection(uniqueName('one'), 1, { field: 'dataset', values: ['orders'], types: [TYPE] });
    const reach = projectionsToReach(
      [
        { type: TYPE, data: { dataset: 'orders' }, position: at(10) },
        { type: TYPE, data: { dataset: 'listings' }, position: at(12) },
        { type: 'Other', data: {}, position: at(14) },
      ],
      [all, one],
    );
    expect(reach).to.deep.equal(
      new Map([
        [all.name, at(12)],
        [one.name, at(10)],
      ]),
    );
  });

  it("waits for a projection behind the user's write, never moves a kept position back, and never for another user's", async () => {
    const p = projection(uniqueName('behind'));
    const [user, other] = [randomUUID(), randomUUID()];
    await setCheckpoint(env.db, p.name, p.version, at(5));
    await rememberWrites(env.db, user, new Map([[p.name, at(7)]]));
    await rememberWrites(env.db, user, new Map([[p.name, at(6)]]));
    expect((await projectionsBehind(env.db, user, [p])).behind).to.deep.equal([p.name]);
    expect((await projectionsBehind(env.db, other, [p])).behind).to.deep.equal([]);
    await setCheckpoint(env.db, p.name, p.version, at(6));
    expect((await projectionsBehind(env.db, user, [p])).behind, 'the position 7 kept, not 6').to.deep.equal([p.name]);
    await setCheckpoint(env.db, p.name, p.version, at(7));
    expect((await projectionsBehind(env.db, user, [p])).behind).to.deep.equal([]);
  });

  it('names a projection a failed apply stopped as stopped, until a batch of it is claimed again', async () => {
    const p = projection(uniqueName('stopped'));
    const user = randomUUID();
    await setCheckpoint(env.db, p.name, p.version, at(5));
    await rememberWrites(env.db, user, new Map([[p.name, at(9)]]));
    expect(onlyStopped(await projectionsBehind(env.db, user, [p]))).to.equal(false);
    // a batch read from an older position failed: another process has applied past it, no mark
    await markStopped(env.db, { name: p.name, version: p.version, from: at(4) });
    expect((await projectionsBehind(env.db, user, [p])).stopped).to.deep.equal([]);
    await markStopped(env.db, { name: p.name, version: p.version, from: at(5) });
    const stopped = await projectionsBehind(env.db, user, [p]);
    expect(stopped).to.deep.equal({ behind: [p.name], stopped: [p.name] });
    expect(onlyStopped(stopped)).to.equal(true);
    // a projector that restarts it claims its next batch: waited for again
    await env.db.transaction((trx) =>
      claimBatches(trx, [{ name: p.name, version: p.version, from: at(5), to: at(6) }]),
    );
    expect(await projectionsBehind(env.db, user, [p])).to.deep.equal({ behind: [p.name], stopped: [] });
    // a rebuild's swap (setCheckpoint) starts unmarked too
    await markStopped(env.db, { name: p.name, version: p.version, from: at(6) });
    await setCheckpoint(env.db, p.name, p.version, at(6));
    expect((await projectionsBehind(env.db, user, [p])).stopped).to.deep.equal([]);
  });

  it('waits for a projection with no event applied yet', async () => {
    const p = projection(uniqueName('empty'));
    const user = randomUUID();
    await setCheckpoint(env.db, p.name, p.version, null);
    await rememberWrites(env.db, user, new Map([[p.name, at(3)]]));
    expect((await projectionsBehind(env.db, user, [p])).behind).to.deep.equal([p.name]);
  });

  it('does not wait for a projection awaiting its rebuild, one this database lacks, or one no longer run', async () => {
    const rebuilding = projection(uniqueName('rebuilding'), 2);
    const missing = projection(uniqueName('missing'));
    const gone = projection(uniqueName('gone'));
    const newer = projection(uniqueName('newer'), 1);
    const user = randomUUID();
    // its live tables (and checkpoint) are version 1, standing still until version 2 is swapped in
    await setCheckpoint(env.db, rebuilding.name, 1, at(5));
    await setCheckpoint(env.db, gone.name, 1, at(5));
    // built by newer code than this process runs: a newer projector moves it
    await setCheckpoint(env.db, newer.name, 2, at(5));
    await rememberWrites(
      env.db,
      user,
      new Map([rebuilding, missing, gone, newer].map((p) => [p.name, at(9)] as [string, Position])),
    );
    expect((await projectionsBehind(env.db, user, [rebuilding, missing, newer])).behind).to.deep.equal([newer.name]);
  });
});
