import { AssertionError, expect } from 'chai';
import { migrateProjections } from '../../src/projections/schema.js';
import { assertApplyTwiceSameResult, assertRebuildEqualsLive, catchUpTo } from '../support/projections.js';
import {
  appendCounted,
  applyLog,
  memoryNumbered,
  openEnv,
  rejection,
  streamCounts,
  uniqueName,
  type TestEnv,
} from './fixtures.js';

async function failure(promise: Promise<unknown>): Promise<Error> {
  const err = await rejection(promise);
  expect(err).to.be.instanceOf(AssertionError);
  return err as Error;
}

describe('projection test helpers', () => {
  let env: TestEnv;

  before(async () => {
    env = await openEnv();
  });
  after(async () => {
    await env.close();
  });

  const ownEvents = async (prefix: string) => {
    await appendCounted(env.store, [`${prefix}-a`, `${prefix}-b`], 3);
    return [...(await env.store.readStream(`${prefix}-a`)), ...(await env.store.readStream(`${prefix}-b`))];
  };

  describe('assertApplyTwiceSameResult', () => {
    it('passes for an idempotent projection', async () => {
      await assertApplyTwiceSameResult(env.db, streamCounts(uniqueName('counts')), await ownEvents(uniqueName('idem')));
    });

    it('fails for a projection that applies an event twice', async () => {
      const err = await failure(
        assertApplyTwiceSameResult(env.db, applyLog(uniqueName('log')), await ownEvents(uniqueName('twice'))),
      );
      expect(err.message).to.contain('applying the same events twice changed its tables');
    });

    it('fails when the events leave the tables empty, which would prove nothing', async () => {
      const deaf = { ...streamCounts(uniqueName('deaf')), handles: ['ProjectionTest.NeverAppended'] };
      const err = await failure(assertApplyTwiceSameResult(env.db, deaf, await ownEvents(uniqueName('deaf'))));
      expect(err.message).to.contain('left its tables empty');
    });
  });

  describe('assertRebuildEqualsLive', () => {
    it('passes when the tables are a function of the log', async () => {
      const counts = streamCounts(uniqueName('counts'));
      await migrateProjections(env.db, [counts]);
      await catchUpTo(env.db, env.store, [counts], await ownEvents(uniqueName('det')));
      await assertRebuildEqualsLive(env.db, env.store, counts);
    });

    it('fails when the tables depend on something outside the log', async () => {
      const numbered = memoryNumbered(uniqueName('numbered'));
      await migrateProjections(env.db, [numbered]);
      await catchUpTo(env.db, env.store, [numbered], await ownEvents(uniqueName('nondet')));
      const err = await failure(assertRebuildEqualsLive(env.db, env.store, numbered));
      expect(err.message).to.contain('rebuilt tables differ from the live ones');
    });
  });
});
