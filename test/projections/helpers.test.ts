import { AssertionError, expect } from 'chai';
import { ApplyError, applyEvents } from '../../src/projections/apply.js';
import { sharedRead, type Projection } from '../../src/projections/projection.js';
import { migrateProjections } from '../../src/projections/schema.js';
import {
  assertApplyTwiceSameResult,
  assertBatchEqualsOneByOne,
  assertRebuildEqualsLive,
  catchUpTo,
} from '../support/projections.js';
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

describe('sharedRead: one read for the live projections standing at a position', () => {
  const projection = (name: string, handles: string[], filter?: Projection['filter']): Projection => ({
    ...applyLog(name),
    handles,
    ...(filter ? { filter } : {}),
  });
  const listings = projection('listings', ['PageObserved', 'SyncCompleted'], {
    field: 'dataset',
    values: ['listings'],
  });
  const orders = projection('orders', ['PageObserved', 'SyncCompleted'], { field: 'dataset', values: ['orders'] });
  const completions = projection('completions', ['SyncCompleted']);
  const receipts = projection('receipts', ['MutationAdmitted']);

  it('loads of a type every projection filters only what one of their filters keeps', () => {
    expect(sharedRead([listings, orders])).to.deep.equal({
      types: ['PageObserved', 'SyncCompleted'],
      filter: { field: 'dataset', values: ['listings', 'orders'], types: ['PageObserved', 'SyncCompleted'] },
    });
  });
  it('reads whole a type one projection takes whole, and leaves out the types nobody standing handles', () => {
    expect(sharedRead([listings, completions, receipts])).to.deep.equal({
      types: ['PageObserved', 'SyncCompleted', 'MutationAdmitted'],
      filter: { field: 'dataset', values: ['listings'], types: ['PageObserved'] },
    });
    expect(sharedRead([completions, receipts])).to.deep.equal({ types: ['SyncCompleted', 'MutationAdmitted'] });
  });
  it("takes a projection's filter as scoped as it is: a type its filter leaves alone is read whole", () => {
    const pagesOnly = projection('pages', ['PageObserved', 'SyncCompleted'], {
      field: 'dataset',
      values: ['orders'],
      types: ['PageObserved'],
    });
    expect(sharedRead([listings, pagesOnly])).to.deep.equal({
      types: ['PageObserved', 'SyncCompleted'],
      filter: { field: 'dataset', values: ['listings', 'orders'], types: ['PageObserved'] },
    });
  });
  it('reads whole a type filtered on another field than the first', () => {
    const byPart = projection('parts', ['Counted'], { field: 'part', values: ['a'] });
    expect(sharedRead([listings, byPart])).to.deep.equal({
      types: ['PageObserved', 'SyncCompleted', 'Counted'],
      filter: { field: 'dataset', values: ['listings'], types: ['PageObserved', 'SyncCompleted'] },
    });
  });
});

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

  describe('assertBatchEqualsOneByOne and set-based applyMany', () => {
    /** streamCounts whose applyMany counts each stream once per batch: wrong when a batch holds two of a stream */
    const careless = (): Projection => {
      const counts = streamCounts(uniqueName('careless'));
      return {
        ...counts,
        async applyMany(trx, events, schema) {
          const firsts = events.filter((e, i) => events.findIndex((o) => o.streamId === e.streamId) === i);
          for (const e of firsts) await counts.apply(trx, e, schema);
        },
      };
    };

    it('passes for a projection without applyMany, and fails for one whose batch leaves other rows', async () => {
      await assertBatchEqualsOneByOne(env.db, streamCounts(uniqueName('counts')), await ownEvents(uniqueName('b1')));
      const err = await failure(assertBatchEqualsOneByOne(env.db, careless(), await ownEvents(uniqueName('b2'))));
      expect(err.message).to.contain('a batch left other rows than one event at a time');
    });

    it('a batch whose applyMany throws is applied again one event at a time, and the error names the event', async () => {
      const events = await ownEvents(uniqueName('fallback'));
      const counts = streamCounts(uniqueName('fallback'));
      const schema = `test_fallback_${Date.now()}`;
      const throwing = (bad: string | null): Projection => ({
        ...counts,
        async applyMany(trx, batch, s) {
          await counts.apply(trx, batch[0]!, s); // a write the savepoint must undo
          throw new Error('set-based insert refused');
        },
        async apply(trx, event, s) {
          if (event.id === bad) throw new Error('this one is bad');
          await counts.apply(trx, event, s);
        },
      });
      try {
        await env.db.raw('create schema ??', [schema]);
        await counts.createTables(env.db, schema);
        await env.db.transaction((trx) => applyEvents(trx, throwing(null), events, schema));
        const rows = await env.db.withSchema(schema).table(counts.name).orderBy('stream_id');
        expect(rows.map((r: { events: number }) => r.events)).to.deep.equal([3, 3]);
        const err = await rejection(
          env.db.transaction((trx) => applyEvents(trx, throwing(events[4]!.id), events, schema)),
        );
        expect(err).to.be.instanceOf(ApplyError);
        expect((err as ApplyError).event.id).to.equal(events[4]!.id);
      } finally {
        await env.db.raw('drop schema if exists ?? cascade', [schema]);
      }
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
