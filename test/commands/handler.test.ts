import { expect } from 'chai';
import type { Knex } from 'knex';
import { z } from 'zod';
import {
  advanced,
  aggregateStream,
  handleCommand,
  handleCommandWith,
  handleCreations,
  noStream,
} from '../../src/commands/shared/handler.js';
import type { Decider } from '../../src/domain/shared/decider.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { createEventStore, WrongExpectedVersion, type EventStore } from '../../src/eventstore/index.js';
import { createDb } from '../../src/infra/db.js';
import { migrateEventStore } from '../../src/eventstore/schema.js';
import { newId } from '../../src/domain/shared/ids.js';

// A counter that refuses to pass a limit: small enough to see every path of the handler.
type Ev = { type: 'Incremented'; data: { by: number } };
type Cmd = { type: 'Increment'; by: number; limit: number };
const counter: Decider<Cmd, number, Ev> = {
  aggregate: 'counter',
  schemas: { Incremented: z.object({ by: z.number() }) },
  initialState: () => 0,
  evolve: (n, e) => n + e.data.by,
  decide: (c, n) => {
    if (n + c.by > c.limit) throw new DomainError('invalid', `by: ${c.by} would pass the limit ${c.limit}`);
    return c.by === 0 ? [] : [{ type: 'Incremented', data: { by: c.by } }];
  },
};

describe('command handler', () => {
  let db: Knex;
  let store: EventStore;
  const ctx = () => ({ store, metadata: { actor: { kind: 'user' as const, id: 'test' } } });

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await migrateEventStore(db);
    store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
  });
  after(async () => {
    await store.close();
    await db.destroy();
  });

  it('folds the stream, decides, and appends with the metadata', async () => {
    const id = newId();
    const first = await handleCommand(counter, id, { type: 'Increment', by: 2, limit: 10 }, ctx());
    expect(first.revision).to.equal(0n);
    const second = await handleCommand(counter, id, { type: 'Increment', by: 3, limit: 10 }, ctx());
    expect(second.revision).to.equal(1n);
    const events = await store.readStream(`counter-${id}`);
    expect(events.map((e) => e.data)).to.deep.equal([{ by: 2 }, { by: 3 }]);
    expect(events[1]!.metadata.actor).to.deep.equal({ kind: 'user', id: 'test' });
    expect(events[1]!.metadata.at).to.be.a('string');
  });

  it('aggregateStream answers the folded state, the revision and the events parsed', async () => {
    const id = newId();
    expect(await aggregateStream(store, counter, id)).to.deep.equal({ state: 0, revision: null, events: [] });
    await handleCommand(counter, id, { type: 'Increment', by: 2, limit: 10 }, ctx());
    await handleCommand(counter, id, { type: 'Increment', by: 3, limit: 10 }, ctx());
    expect(await aggregateStream(store, counter, id)).to.deep.equal({
      state: 5,
      revision: 1n,
      events: [
        { type: 'Incremented', data: { by: 2 } },
        { type: 'Incremented', data: { by: 3 } },
      ],
    });
  });

  it('an event that does not fit its schema fails the read, naming stream, revision and type', async () => {
    const id = newId();
    await store.appendToStream(`counter-${id}`, [
      { type: 'Incremented', data: { by: 1 } },
      { type: 'Incremented', data: { by: 'two' } },
    ]);
    let thrown: unknown;
    try {
      await aggregateStream(store, counter, id);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(Error);
    expect((thrown as Error).message).to.match(new RegExp(`^event 1 of stream counter-${id} \\(Incremented\\)`));
    expect((thrown as Error).message).to.include('by');
    const other = newId();
    await store.appendToStream(`counter-${other}`, [{ type: 'Decremented', data: { by: 1 } }]);
    const refused = await aggregateStream(store, counter, other).catch((err: Error) => err);
    expect((refused as Error).message).to.equal(
      `event 0 of stream counter-${other} has type Decremented, which is none of Incremented`,
    );
  });

  it('builds the command for the state it decides on, again after a concurrent append', async () => {
    const id = newId();
    await handleCommand(counter, id, { type: 'Increment', by: 1, limit: 10 }, ctx());
    const seen: number[] = [];
    const racing: EventStore = Object.create(store, {
      appendToStream: {
        value: async (...args: Parameters<EventStore['appendToStream']>) => {
          // another writer gets in first, once
          if (seen.length === 1)
            await store.appendToStream(`counter-${id}`, [{ type: 'Incremented', data: { by: 4 } }]);
          return store.appendToStream(...args);
        },
      },
    });
    const { events } = await handleCommandWith(
      counter,
      id,
      (n) => {
        seen.push(n);
        return { type: 'Increment' as const, by: n, limit: 100 };
      },
      { store: racing, metadata: {} },
    );
    expect(seen).to.deep.equal([1, 5]);
    expect(events).to.deep.equal([{ type: 'Incremented', data: { by: 5 } }]);
  });

  it('handleCreations: decides each on the initial state, creates the streams in one write, and says which existed', async () => {
    const [a, b] = [newId(), newId()];
    await handleCommand(counter, b, { type: 'Increment', by: 1, limit: 10 }, ctx());
    const made = await handleCreations(
      counter,
      [a, b, a].map((id, i) => ({ id, command: { type: 'Increment' as const, by: i + 2, limit: 10 } })),
      ctx(),
    );
    expect(made.map((m) => m.existed)).to.deep.equal([false, true, true]);
    expect(made[0]!.position).to.not.equal(null);
    expect((await aggregateStream(store, counter, a)).state).to.equal(2);
    const [created] = await store.readStream(`counter-${a}`);
    expect(created!.metadata).to.deep.include({ actor: { kind: 'user', id: 'test' } });
    expect(created!.metadata.correlation_id).to.be.a('string');
    expect((await aggregateStream(store, counter, b)).state, 'an existing stream is left as it was').to.equal(1);
    // a refusal, or a decision of no event, is the caller's to see before anything is written
    const c = newId();
    for (const by of [0, 20]) {
      const attempt = handleCreations(counter, [{ id: c, command: { type: 'Increment', by, limit: 10 } }], ctx());
      await attempt.then(
        () => expect.fail('a creation of no event or a refused one went through'),
        (err: Error) => expect(err.message).to.match(by === 0 ? /one event; counter decided 0/ : /pass the limit/),
      );
    }
    expect(await store.readStream(`counter-${c}`)).to.deep.equal([]);
  });

  it('decides on an aggregate the caller knows without reading it; a stale one is decided again on fresh state', async () => {
    const id = newId();
    await handleCommand(counter, id, { type: 'Increment', by: 2, limit: 10 }, ctx());
    const known = await aggregateStream(store, counter, id);
    let reads = 0;
    const counting: EventStore = Object.create(store, {
      readStream: { value: (...args: Parameters<EventStore['readStream']>) => (reads++, store.readStream(...args)) },
    });
    const cmd = { type: 'Increment' as const, by: 3, limit: 6 };
    expect((await handleCommand(counter, id, cmd, { ...ctx(), store: counting }, known)).revision).to.equal(1n);
    expect(reads, 'the known aggregate spared the read').to.equal(0);
    // `known` is now stale (state 2, revision 0): the append conflicts, the fresh state (5) refuses 3 more
    const again = handleCommand(counter, id, { ...cmd, by: 1 }, { ...ctx(), store: counting }, known);
    expect((await again).revision).to.equal(2n);
    expect(reads, 'decided again after reading').to.equal(1);
    const refused = handleCommand(counter, id, cmd, { ...ctx(), store: counting }, known);
    await refused.then(
      () => expect.fail('a stale known state let an increment past the limit'),
      (err: unknown) => expect(err).to.be.instanceOf(DomainError),
    );
    expect((await aggregateStream(store, counter, id)).state).to.equal(6);
  });

  it('advanced: the aggregate after a command, folded on from the known one; undefined when another writer came between', async () => {
    const id = newId();
    const first = noStream(counter);
    const created = await handleCommand(counter, id, { type: 'Increment', by: 2, limit: 10 }, ctx(), first);
    const after = advanced(counter, first, created)!;
    expect(after).to.deep.equal(await aggregateStream(store, counter, id), 'as a read of the stream would say');
    const more = await handleCommand(counter, id, { type: 'Increment', by: 3, limit: 10 }, ctx(), after);
    expect(advanced(counter, after, more)).to.deep.equal(await aggregateStream(store, counter, id));
    // `after` is stale now (state 2): the command is decided again on the read, and its result can't be folded on
    const decidedAgain = await handleCommand(counter, id, { type: 'Increment', by: 1, limit: 10 }, ctx(), after);
    expect(decidedAgain.revision).to.equal(2n);
    expect(advanced(counter, after, decidedAgain)).to.equal(undefined);
    // nothing decided: the known aggregate as it was
    const none = await handleCommand(counter, id, { type: 'Increment', by: 0, limit: 10 }, ctx(), first);
    expect(advanced(counter, first, none)).to.deep.equal(first);
  });

  it('appends nothing when the decider returns no events', async () => {
    const id = newId();
    const result = await handleCommand(counter, id, { type: 'Increment', by: 0, limit: 10 }, ctx());
    expect(result).to.deep.equal({ events: [], revision: null, position: null });
    expect(await store.readStream(`counter-${id}`)).to.deep.equal([]);
  });

  it('decides again on fresh state after a concurrent append, so invariants hold', async () => {
    const id = newId();
    // ten concurrent increments of 1 against a limit of 7: exactly seven win
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        handleCommand(counter, id, { type: 'Increment', by: 1, limit: 7 }, { ...ctx(), maxAttempts: 20 }),
      ),
    );
    const refused = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason as Error);
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(7);
    expect(
      refused.every((e) => e instanceof DomainError && e.code === 'invalid'),
      refused.map((e) => e.message).join('; '),
    ).to.equal(true);
    expect(await store.readStream(`counter-${id}`)).to.have.length(7);
  });

  it('gives up with WrongExpectedVersion after the bounded number of attempts', async () => {
    const id = newId();
    // a writer that always gets in between the handler's read and its append
    let reads = 0;
    const contended: EventStore = Object.create(store, {
      readStream: {
        value: async (stream: string) => {
          reads++;
          const seen = await store.readStream(stream);
          await store.appendToStream(stream, [{ type: 'Incremented', data: { by: 1 } }]);
          return seen;
        },
      },
    });
    let thrown: unknown;
    try {
      await handleCommand(
        counter,
        id,
        { type: 'Increment', by: 1, limit: 100 },
        { store: contended, metadata: {}, maxAttempts: 3 },
      );
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(WrongExpectedVersion);
    expect(reads).to.equal(3);
    expect(await store.readStream(`counter-${id}`), 'only the other writer appended').to.have.length(3);
  });
});
