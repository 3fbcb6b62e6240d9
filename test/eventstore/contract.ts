import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  WrongExpectedVersion,
  comparePositions,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
} from '../../src/eventstore/port.js';
import { streamReadsTogether } from '../../src/runtime/live/stream-reads.js';

// The one contract both adapters must meet. Other test files share the database (and an
// EventStoreDB server may hold anything), so every test works on streams with its own prefix
// and reads of the global log keep only those.

const event = (type: string, data: Record<string, unknown> = {}, metadata?: EventData['metadata']): EventData => ({
  id: randomUUID(),
  type,
  data,
  ...(metadata ? { metadata } : {}),
});

async function expectWrongVersion(
  promise: Promise<unknown>,
  streamId: string,
  expected: ExpectedRevision,
  actual: bigint | typeof NO_STREAM,
) {
  const err = await promise.then(
    () => expect.fail('append succeeded, expected WrongExpectedVersion'),
    (e: unknown) => e,
  );
  expect(err).to.be.instanceOf(WrongExpectedVersion);
  expect(err).to.include({ name: 'WrongExpectedVersion', streamId, expected, actual });
}

/**
 * Follows the global log with readAll paging from `after`, checking that it only moves
 * forward, until `done()` holds after a page.
 */
async function follow(
  store: EventStore,
  after: Position | null,
  limit: number,
  onEvent: (e: RecordedEvent) => void,
  done: () => boolean,
) {
  let cursor = after;
  for (;;) {
    const page = await store.readAll({ after: cursor, limit });
    expect(page.length).to.be.at.most(limit);
    for (const e of page) {
      if (cursor) {
        const at = (p: Position) => `${p.commit}/${p.prepare}`;
        expect(
          comparePositions(e.position, cursor),
          `readAll goes strictly forward: ${at(e.position)} after ${at(cursor)}`,
        ).to.equal(1);
      }
      cursor = e.position;
      onEvent(e);
    }
    if (done()) return;
    // Fewer than asked: the log's readable end; a running transaction may still hold events back.
    if (page.length < limit) await delay(5);
  }
}

async function readAllUntil(
  store: EventStore,
  after: Position | null,
  limit: number,
  done: (seen: RecordedEvent[]) => boolean,
) {
  const seen: RecordedEvent[] = [];
  await follow(
    store,
    after,
    limit,
    (e) => seen.push(e),
    () => done(seen),
  );
  return seen;
}

export function eventStoreContract(createStore: () => Promise<EventStore>): void {
  let store: EventStore;
  let prefix: string;
  const stream = (name: string) => `${prefix}${name}-${randomUUID().slice(0, 8)}`;
  const ours = (events: RecordedEvent[]) => events.filter((e) => e.streamId.startsWith(prefix));

  before(async () => {
    store = await createStore();
  });
  after(async () => {
    await store?.close();
  });
  beforeEach(() => {
    prefix = `t${randomUUID().slice(0, 8)}_`;
  });

  describe('expected revision', () => {
    it('NO_STREAM creates a stream at revision 0 and then conflicts with actual 0', async () => {
      const s = stream('order');
      const result = await store.appendToStream(s, [event('Created')], { expectedRevision: NO_STREAM });
      expect(result.nextExpectedRevision).to.equal(0n);
      await expectWrongVersion(
        store.appendToStream(s, [event('Created')], { expectedRevision: NO_STREAM }),
        s,
        NO_STREAM,
        0n,
      );
      expect(await store.readStream(s)).to.have.length(1);
    });

    it('STREAM_EXISTS conflicts on a missing stream (actual NO_STREAM) and appends to an existing one', async () => {
      const s = stream('order');
      await expectWrongVersion(
        store.appendToStream(s, [event('Updated')], { expectedRevision: STREAM_EXISTS }),
        s,
        STREAM_EXISTS,
        NO_STREAM,
      );
      expect(await store.readStream(s)).to.deep.equal([]);
      await store.appendToStream(s, [event('Created')], { expectedRevision: NO_STREAM });
      const result = await store.appendToStream(s, [event('Updated'), event('Updated')], {
        expectedRevision: STREAM_EXISTS,
      });
      expect(result.nextExpectedRevision).to.equal(2n);
    });

    it('ANY (also the default) appends to missing and existing streams', async () => {
      const s = stream('order');
      expect((await store.appendToStream(s, [event('A')], { expectedRevision: ANY })).nextExpectedRevision).to.equal(
        0n,
      );
      expect((await store.appendToStream(s, [event('B')], { expectedRevision: ANY })).nextExpectedRevision).to.equal(
        1n,
      );
      expect((await store.appendToStream(s, [event('C')])).nextExpectedRevision).to.equal(2n);
      expect((await store.readStream(s)).map((e) => [e.type, e.revision])).to.deep.equal([
        ['A', 0n],
        ['B', 1n],
        ['C', 2n],
      ]);
    });

    it('an exact revision appends when it is the last revision and conflicts otherwise', async () => {
      const s = stream('order');
      await expectWrongVersion(store.appendToStream(s, [event('A')], { expectedRevision: 0n }), s, 0n, NO_STREAM);
      const first = await store.appendToStream(s, [event('A'), event('B')], { expectedRevision: NO_STREAM });
      expect(first.nextExpectedRevision).to.equal(1n);
      await expectWrongVersion(store.appendToStream(s, [event('C')], { expectedRevision: 0n }), s, 0n, 1n);
      await expectWrongVersion(store.appendToStream(s, [event('C')], { expectedRevision: 5n }), s, 5n, 1n);
      const second = await store.appendToStream(s, [event('C')], { expectedRevision: first.nextExpectedRevision });
      expect(second.nextExpectedRevision).to.equal(2n);
      expect(comparePositions(second.position, first.position)).to.equal(1);
      expect((await store.readStream(s)).map((e) => e.type)).to.deep.equal(['A', 'B', 'C']);
    });

    it('of 8 concurrent appends at the same revision exactly one wins; the others get WrongExpectedVersion', async () => {
      const s = stream('order');
      await store.appendToStream(s, [event('Created')], { expectedRevision: NO_STREAM });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          store.appendToStream(s, [event('Raced', { i }), event('Raced', { i })], { expectedRevision: 0n }),
        ),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect(won).to.have.length(1);
      expect(lost).to.have.length(7);
      for (const err of lost) {
        expect(err).to.be.instanceOf(WrongExpectedVersion);
        expect(err).to.include({ streamId: s, expected: 0n, actual: 2n });
      }
      const events = await store.readStream(s);
      expect(events.map((e) => e.revision)).to.deep.equal([0n, 1n, 2n]);
      expect(new Set(events.slice(1).map((e) => (e.data as { i: number }).i)).size).to.equal(1);
    });
  });

  describe('readStreams and reads together', () => {
    it('reads each stream whole in the order asked (a missing one empty, a repeated one twice), as readStream does', async () => {
      const [a, b, missing] = [stream('a'), stream('b'), stream('missing')];
      await store.appendToStream(a, [event('A1'), event('A2')]);
      await store.appendToStream(b, [event('B1')]);
      const read = await store.readStreams([b, missing, a, b]);
      expect(read.map((events) => events.map((e) => e.type))).to.deep.equal([['B1'], [], ['A1', 'A2'], ['B1']]);
      expect(read[2]).to.deep.equal(await store.readStream(a));
    });

    it('streamReadsTogether sends the reads of one turn as one readStreams and answers each with its own stream', async () => {
      const [a, b, missing] = [stream('a'), stream('b'), stream('missing')];
      await store.appendToStream(a, [event('A1')]);
      await store.appendToStream(b, [event('B1'), event('B2')]);
      const calls: string[][] = [];
      const counted = new Proxy(store, {
        get(target, key) {
          if (key === 'readStreams') return (streams: string[]) => (calls.push(streams), target.readStreams(streams));
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        },
      });
      const together = streamReadsTogether(counted);
      const read = await Promise.all([a, b, missing, a].map((s) => together.readStream(s)));
      expect(read.map((events) => events.map((e) => e.type))).to.deep.equal([['A1'], ['B1', 'B2'], [], ['A1']]);
      expect(calls.map((c) => [...c].sort())).to.deep.equal([[a, b, missing].sort()]);
      // a later turn is a read of its own; a bounded read is the store's own
      expect((await together.readStream(b)).map((e) => e.type)).to.deep.equal(['B1', 'B2']);
      expect((await together.readStream(b, { fromRevision: 1n })).map((e) => e.type)).to.deep.equal(['B2']);
      expect(calls).to.have.length(1);
    });
  });

  describe('createStreams', () => {
    it('creates each missing stream with its event at revision 0, in list order; an existing or repeated stream is null and unchanged', async () => {
      const [a, b, existing] = [stream('a'), stream('b'), stream('existing')];
      await store.appendToStream(existing, [event('Before')], { expectedRevision: NO_STREAM });
      const positions = await store.createStreams([
        { stream: a, event: event('First', { n: 1 }) },
        { stream: existing, event: event('Late') },
        { stream: b, event: event('Second', { n: 2 }) },
        { stream: a, event: event('Again') },
      ]);
      expect(positions.map((p) => p !== null)).to.deep.equal([true, false, true, false]);
      expect(comparePositions(positions[2]!, positions[0]!)).to.equal(1);
      expect((await store.readStream(a)).map((e) => [e.type, e.revision, e.data])).to.deep.equal([
        ['First', 0n, { n: 1 }],
      ]);
      expect((await store.readStream(existing)).map((e) => e.type)).to.deep.equal(['Before']);
      const log = ours(await readAllUntil(store, null, 1_000, (seen) => ours(seen).length >= 3));
      expect(log.map((e) => e.type)).to.deep.equal(['Before', 'First', 'Second']);
      expect(log[1]!.position).to.deep.equal(positions[0]);
      expect(await store.createStreams([])).to.deep.equal([]);
    });

    it('exclusive: a stream that exists leaves it and every stream after it unwritten; none existing, all are created', async () => {
      const [key, receipt, existing, other] = [stream('key'), stream('receipt'), stream('there'), stream('other')];
      // a key-like stream, then a receipt-like one, exclusively
      const both = (first: string, type: string, second: string) =>
        store.createStreams(
          [
            { stream: first, event: event(type) },
            { stream: second, event: event('Receipt') },
          ],
          { exclusive: true },
        );
      await store.appendToStream(existing, [event('Before')], { expectedRevision: NO_STREAM });
      expect(await both(existing, 'Late', receipt)).to.deep.equal([null, null]);
      expect(await store.readStream(receipt)).to.deep.equal([]);
      expect((await store.readStream(existing)).map((e) => e.type)).to.deep.equal(['Before']);
      const created = await both(key, 'Key', receipt);
      expect(created.map((p) => p !== null)).to.deep.equal([true, true]);
      expect(comparePositions(created[1]!, created[0]!)).to.equal(1);
      // the second of two writers of one key writes nothing
      const again = await both(key, 'Key', other);
      expect(again).to.deep.equal([null, null]);
      expect(await store.readStream(other)).to.deep.equal([]);
      expect((await store.readStream(key)).map((e) => e.type)).to.deep.equal(['Key']);
    });

    it('4 writers creating overlapping streams at once: each stream is created once, by one of them', async () => {
      const names = Array.from({ length: 40 }, (_, i) => stream(`race${i}`));
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, w) =>
          store.createStreams(names.map((name) => ({ stream: name, event: event('Created', { w }) }))),
        ),
      );
      for (const [i, name] of names.entries()) {
        const winners = results.filter((r) => r[i] !== null);
        expect(winners, name).to.have.length(1);
        const events = await store.readStream(name);
        expect(events).to.have.length(1);
        expect(events[0]!.position).to.deep.equal(winners[0]![i]);
      }
    });
  });

  describe('appendToStreams', () => {
    it('appends to each stream after its expected revision, in one write', async () => {
      const [a, b, fresh, missing] = [stream('a'), stream('b'), stream('fresh'), stream('missing')];
      await store.appendToStream(a, [event('A0')], { expectedRevision: NO_STREAM });
      await store.appendToStream(b, [event('B0'), event('B1')], { expectedRevision: NO_STREAM });
      const results = await store.appendToStreams([
        { stream: b, events: [event('B2', { n: 2 })], expectedRevision: 1n },
        { stream: a, events: [event('A1'), event('A2')], expectedRevision: STREAM_EXISTS },
        { stream: fresh, events: [event('F0')], expectedRevision: NO_STREAM },
      ]);
      expect(results.map((r) => r?.nextExpectedRevision)).to.deep.equal([2n, 2n, 0n]);
      const read = await store.readStreams([a, missing, b, fresh]);
      expect(read.map((events) => events.map((e) => [e.type, e.revision]))).to.deep.equal([
        [
          ['A0', 0n],
          ['A1', 1n],
          ['A2', 2n],
        ],
        [],
        [
          ['B0', 0n],
          ['B1', 1n],
          ['B2', 2n],
        ],
        [['F0', 0n]],
      ]);
      expect(read[2]![2]!.data).to.deep.equal({ n: 2 });
      expect(read[2]![2]!.position).to.deep.equal(results[0]!.position);
      expect(await store.appendToStreams([])).to.deep.equal([]);
    });

    it("a refused expectation leaves its stream unwritten (null); in a store that writes them together, every other stream's too", async () => {
      const [a, b] = [stream('a'), stream('b')];
      await store.appendToStream(b, [event('B0')], { expectedRevision: NO_STREAM });
      const results = await store.appendToStreams([
        { stream: a, events: [event('A0')], expectedRevision: NO_STREAM },
        { stream: b, events: [event('B1')], expectedRevision: 5n },
      ]);
      expect(results[1]).to.equal(null);
      expect((await store.readStream(b)).map((e) => e.type)).to.deep.equal(['B0']);
      expect((await store.readStream(a)).map((e) => e.type)).to.deep.equal(store.atomicCreation ? [] : ['A0']);
      expect(results[0] === null).to.equal(store.atomicCreation);
    });

    it('4 writers appending to the same streams at the same revision: each stream takes one of them', async () => {
      const names = Array.from({ length: 10 }, (_, i) => stream(`race${i}`));
      for (const name of names) await store.appendToStream(name, [event('Created')], { expectedRevision: NO_STREAM });
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, w) =>
          store.appendToStreams(
            names.map((name) => ({ stream: name, events: [event('Next', { w })], expectedRevision: 0n })),
          ),
        ),
      );
      for (const [i, name] of names.entries()) {
        const winners = results.filter((r) => r[i] !== null);
        expect(winners, name).to.have.length(1);
        const events = await store.readStream(name);
        expect(events.map((e) => e.revision)).to.deep.equal([0n, 1n]);
        expect(events[1]!.position).to.deep.equal(winners[0]![i]!.position);
      }
      // written together: one writer took them all
      if (store.atomicCreation)
        expect(results.filter((r) => r[0] !== null)[0]!.every((r) => r !== null)).to.equal(true);
    });
  });

  describe('readStream', () => {
    it('reads a missing stream as an empty array', async () => {
      expect(await store.readStream(stream('missing'))).to.deep.equal([]);
      expect(await store.readStream(stream('missing'), { fromRevision: 3n, maxCount: 2 })).to.deep.equal([]);
    });

    it('pages with fromRevision and maxCount', async () => {
      const s = stream('page');
      await store.appendToStream(
        s,
        Array.from({ length: 25 }, (_, i) => event('Numbered', { i })),
        { expectedRevision: NO_STREAM },
      );
      const pages: number[][] = [];
      for (let from = 0n; ; from += 10n) {
        const page = await store.readStream(s, { fromRevision: from, maxCount: 10 });
        if (page.length === 0) break;
        pages.push(page.map((e) => (e.data as { i: number }).i));
        expect(page.map((e) => e.revision)).to.deep.equal(page.map((_, k) => from + BigInt(k)));
      }
      expect(pages.map((p) => p.length)).to.deep.equal([10, 10, 5]);
      expect(pages.flat()).to.deep.equal(Array.from({ length: 25 }, (_, i) => i));
      expect(await store.readStream(s, { fromRevision: 24n })).to.have.length(1);
    });

    it('round-trips id, type, data, metadata and the recorded fields', async () => {
      const s = stream('meta');
      const input = event(
        'ListingPriceChanged',
        {
          sku: 'A-1',
          price: { amount: '19.99', currency: 'EUR' },
          tags: ['x', 'y'],
          note: 'quote " and \\ backslash, ünïcode',
        },
        {
          correlation_id: randomUUID(),
          causation_id: randomUUID(),
          actor: { kind: 'automation', id: 'auto-1' },
          account_id: randomUUID(),
          at: '2025-01-02T03:04:05.000Z',
          raw: { nested: [1, 2, { deep: true }] },
        },
      );
      const result = await store.appendToStream(s, [input], { expectedRevision: NO_STREAM });
      const [read] = await store.readStream(s);
      expect(read).to.include({ id: input.id, streamId: s, revision: 0n, type: input.type });
      expect(read!.data).to.deep.equal(input.data);
      expect(read!.metadata).to.deep.equal(input.metadata);
      expect(read!.position).to.deep.equal(result.position);
      expect(read!.createdAt).to.be.instanceOf(Date);
      expect(Math.abs(read!.createdAt.getTime() - Date.now())).to.be.below(10 * 60_000);

      const bare = await store.appendToStream(s, [{ type: 'NoIdNoMetadata', data: { ok: true } }]);
      const [, second] = await store.readStream(s);
      expect(second!.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(second!.metadata).to.deep.equal({});
      expect(second!.position).to.deep.equal(bare.position);
    });
  });

  describe('deleteStream', () => {
    it('deletes a stream: it reads as missing, other streams stay; a missing stream is no error', async () => {
      const gone = stream('deleted');
      const kept = stream('kept');
      await store.appendToStream(gone, [event('A'), event('B')], { expectedRevision: NO_STREAM });
      await store.appendToStream(kept, [event('C')], { expectedRevision: NO_STREAM });
      await store.deleteStream(gone);
      expect(await store.readStream(gone)).to.deep.equal([]);
      expect((await store.readStream(kept)).map((e) => e.type)).to.deep.equal(['C']);
      await store.deleteStream(gone);
      await store.deleteStream(stream('never-written'));
    });
  });

  describe('truncateStream', () => {
    it('removes the events before a revision: reads start there, revisions and appends go on; a missing stream is no error', async () => {
      const s = stream('truncated');
      await store.appendToStream(s, [event('A'), event('B'), event('C')], { expectedRevision: NO_STREAM });
      await store.truncateStream(s, 2n);
      expect((await store.readStream(s)).map((e) => [e.type, e.revision])).to.deep.equal([['C', 2n]]);
      await store.appendToStream(s, [event('D')], { expectedRevision: 2n });
      expect((await store.readStream(s)).map((e) => e.type)).to.deep.equal(['C', 'D']);
      await store.truncateStream(stream('never-written'), 1n);
    });
  });

  describe('readAll', () => {
    it('pages through the global log in order, each event once', async () => {
      const marker = await store.appendToStream(stream('marker'), [event('Marker')]);
      const streams = [stream('a'), stream('b'), stream('c')];
      const appended: string[] = [];
      const appendPositions: Position[] = [];
      for (let i = 0; i < 12; i++) {
        const batch = [event('Paged', { i }), event('Paged', { i })];
        appendPositions.push((await store.appendToStream(streams[i % 3]!, batch)).position);
        appended.push(...batch.map((e) => e.id!));
      }
      const seen = ours(await readAllUntil(store, marker.position, 5, (all) => ours(all).length >= appended.length));
      expect(seen.map((e) => e.id)).to.deep.equal(appended);
      // An append's position lies within its events' (PostgreSQL: its last event's).
      appendPositions.forEach((p, i) => {
        expect(comparePositions(seen[2 * i]!.position, p)).to.be.at.most(0);
        expect(comparePositions(p, seen[2 * i + 1]!.position)).to.be.at.most(0);
      });
    });

    it('reads from the start when after is null', async () => {
      const s = stream('first');
      await store.appendToStream(s, [event('Early')]);
      const page = await store.readAll({ after: null, limit: 1 });
      expect(page).to.have.length(1);
      const all = await readAllUntil(store, null, 1000, (seen) => seen.some((e) => e.streamId === s));
      expect(all[0]).to.deep.equal(page[0]);
    });
  });

  describe('readAllOfTypes', () => {
    it('pages through the events of the wanted types only, in order, and says how far it looked', async () => {
      const marker = await store.appendToStream(stream('marker'), [event('Marker')]);
      const wanted = `Wanted${randomUUID().slice(0, 8)}`;
      const other = `Other${randomUUID().slice(0, 8)}`;
      const ids: string[] = [];
      let last: Position | null = null;
      for (let i = 0; i < 9; i++) {
        const batch = [event(other, { i }), event(wanted, { i }), event(other, { i })];
        last = (await store.appendToStream(stream('typed'), batch)).position;
        ids.push(batch[1]!.id!);
      }
      const seen: RecordedEvent[] = [];
      let through: Position | null = marker.position;
      let passed = 0;
      const deadline = Date.now() + 10_000;
      while (comparePositions(through!, last!) < 0) {
        if (Date.now() > deadline) throw new Error('readAllOfTypes never looked past the last append');
        const page = await store.readAllOfTypes({ after: through, types: [wanted], limit: 2 });
        expect(page.events.length).to.be.at.most(2);
        expect(page.events.every((e) => e.type === wanted)).to.equal(true);
        expect(comparePositions(page.through!, through!), 'through never goes back').to.be.at.least(0);
        // every wanted event up to `through` was returned: none lies beyond it
        for (const e of page.events) expect(comparePositions(e.position, page.through!)).to.be.at.most(0);
        seen.push(...page.events);
        passed += page.passed;
        through = page.through;
      }
      expect(seen.map((e) => e.id)).to.deep.equal(ids);
      expect(seen[0]!.data).to.deep.equal({ i: 0 });
      // every event appended after the marker, wanted or not (other writers' too)
      expect(passed).to.be.at.least(27);
    });

    it('says when a read looked at everything readable now, and not when it stopped at its limit', async () => {
      const wanted = `Wanted${randomUUID().slice(0, 8)}`;
      const marker = await store.appendToStream(stream('marker'), [event('Marker')]);
      const last = await store.appendToStream(stream('end'), [event(wanted), event(wanted), event(wanted)]);
      const full = await store.readAllOfTypes({ after: marker.position, types: [wanted], limit: 2 });
      expect(full.events).to.have.length(2);
      expect(full.end, 'stopped at its limit').to.equal(false);
      // other tests append meanwhile: read on until a read has looked past this test's last append
      const deadline = Date.now() + 10_000;
      let page = await store.readAllOfTypes({ after: full.through, types: [wanted], limit: 2 });
      while (!page.end || comparePositions(page.through!, last.position) < 0) {
        if (Date.now() > deadline) throw new Error('readAllOfTypes never reached the end of the log');
        page = await store.readAllOfTypes({ after: page.through, types: [wanted], limit: 2 });
      }
      const after = await store.readAllOfTypes({ after: page.through, types: [wanted], limit: 2 });
      expect(after.events, 'nothing of its types past the end').to.deep.equal([]);
    });

    it("passes over the events its filter drops, keeps those without the filter's field, and counts what it went past", async () => {
      const marker = await store.appendToStream(stream('marker'), [event('Marker')]);
      const wanted = `Wanted${randomUUID().slice(0, 8)}`;
      const datas = [{ dataset: 'a' }, { dataset: 'b', rows: 'x'.repeat(5_000) }, { dataset: 7 }, {}, { dataset: 'c' }];
      const kept: string[] = [];
      let last: Position | null = null;
      for (const [i, data] of [...datas, ...datas].entries()) {
        const e = event(wanted, { ...data, i });
        last = (await store.appendToStream(stream('filtered'), [e, event('Other', { dataset: 'a' })])).position;
        if (data.dataset !== 'b' && data.dataset !== 'c') kept.push(e.id!);
      }
      const seen: RecordedEvent[] = [];
      let through: Position | null = marker.position;
      let passed = 0;
      const deadline = Date.now() + 10_000;
      while (comparePositions(through!, last!) < 0) {
        if (Date.now() > deadline) throw new Error('readAllOfTypes never looked past the last append');
        const page = await store.readAllOfTypes({
          after: through,
          types: [wanted],
          filter: { field: 'dataset', values: ['a'] },
          limit: 2,
        });
        expect(page.events.length).to.be.at.most(2);
        seen.push(...page.events);
        passed += page.passed;
        through = page.through;
      }
      expect(seen.map((e) => e.id)).to.deep.equal(kept);
      expect(seen.map((e) => (e.data as { i: number }).i)).to.deep.equal([0, 2, 3, 5, 7, 8]);
      // every event appended after the marker, kept, dropped or of another type (other writers' too)
      expect(passed).to.be.at.least(datas.length * 4);
    });

    it('a filter scoped to some types looks at those only: events of the other types are kept whatever their field', async () => {
      const marker = await store.appendToStream(stream('marker'), [event('Marker')]);
      const [page, done] = [`Page${randomUUID().slice(0, 8)}`, `Done${randomUUID().slice(0, 8)}`];
      const appended = [
        event(page, { dataset: 'a' }),
        event(page, { dataset: 'b' }),
        event(done, { dataset: 'a' }),
        event(done, { dataset: 'b' }),
        event(page, {}),
      ];
      const { position: last } = await store.appendToStream(stream('scoped'), appended);
      const seen: RecordedEvent[] = [];
      let through: Position | null = marker.position;
      const deadline = Date.now() + 10_000;
      while (comparePositions(through!, last) < 0) {
        if (Date.now() > deadline) throw new Error('readAllOfTypes never looked past the last append');
        const read = await store.readAllOfTypes({
          after: through,
          types: [page, done],
          filter: { field: 'dataset', values: ['a'], types: [page] },
          limit: 2,
        });
        seen.push(...read.events);
        through = read.through;
      }
      expect(seen.map((e) => e.id)).to.deep.equal([0, 2, 3, 4].map((i) => appended[i]!.id));
    });
  });

  describe('subscribeToAll and onAppended', () => {
    it('catches up, then delivers live events, and ends after unsubscribe', async () => {
      const marker = await store.appendToStream(stream('marker'), [event('Marker')]);
      const s = stream('sub');
      await store.appendToStream(s, [event('Before', { n: 1 }), event('Before', { n: 2 })], {
        expectedRevision: NO_STREAM,
      });
      const subscription = store.subscribeToAll({ after: marker.position });
      const iterator = subscription[Symbol.asyncIterator]();
      const next = async () => {
        for (;;) {
          const r = await iterator.next();
          if (r.done) throw new Error('subscription ended early');
          if (r.value.streamId.startsWith(prefix)) return r.value;
        }
      };
      expect([(await next()).type, (await next()).type]).to.deep.equal(['Before', 'Before']);
      const live = next();
      await store.appendToStream(s, [event('After', { n: 3 })], { expectedRevision: 1n });
      const got = await live;
      expect(got).to.include({ type: 'After', revision: 2n, streamId: s });
      await subscription.unsubscribe();
      for (;;) {
        const r = await iterator.next();
        if (r.done) break;
      }
    });

    it('with types: only those, in order, caught up and live, however many others lie between', async () => {
      const marker = await store.appendToStream(stream('marker'), [event('Marker')]);
      const wanted = `${prefix}Wanted`;
      const s = stream('typed');
      const noise = (n: number) => Array.from({ length: n }, () => event(`${prefix}Noise`));
      await store.appendToStream(s, [...noise(30), event(wanted, { n: 1 }), ...noise(30), event(wanted, { n: 2 })]);
      const subscription = store.subscribeToAll({ after: marker.position, types: [wanted] });
      const iterator = subscription[Symbol.asyncIterator]();
      const next = async () => {
        const r = await iterator.next();
        if (r.done) throw new Error('subscription ended early');
        return r.value;
      };
      expect([(await next()).data, (await next()).data]).to.deep.equal([{ n: 1 }, { n: 2 }]);
      const live = next();
      await store.appendToStream(s, [...noise(50), event(wanted, { n: 3 })]);
      expect((await live).data).to.deep.equal({ n: 3 });
      await subscription.unsubscribe();
      for (;;) if ((await iterator.next()).done) break;
    });

    it('calls onAppended listeners after an append in the same process', async () => {
      let resolve!: () => void;
      const called = new Promise<void>((r) => (resolve = r));
      const unregister = store.onAppended(() => resolve());
      try {
        await store.appendToStream(stream('hint'), [event('Hinted')]);
        await called;
      } finally {
        unregister();
      }
    });

    it('calls a listener of some types for appends of those, not for appends of others, here and in another store', async () => {
      const wanted = `Wanted${randomUUID().slice(0, 8)}`;
      const other = await createStore();
      const heard = { here: 0, there: 0, all: 0 };
      const unregister = [
        store.onAppended(() => heard.here++, [wanted]),
        other.onAppended(() => heard.there++, [wanted]),
        other.onAppended(() => heard.all++),
      ];
      try {
        // The other store's listener connection comes up asynchronously: append until it hears.
        while (heard.all === 0) {
          await store.appendToStream(stream('unwanted'), [event('Unwanted')]);
          await delay(20);
        }
        await delay(100);
        expect(heard, 'no hint of the wanted type yet').to.include({ here: 0, there: 0 });
        await store.appendToStream(stream('wanted'), [event('Unwanted'), event(wanted)]);
        const deadline = Date.now() + 5_000;
        while ((heard.here === 0 || heard.there === 0) && Date.now() < deadline) await delay(10);
        expect(heard.here, 'this store').to.be.at.least(1);
        expect(heard.there, 'the other store').to.be.at.least(1);
      } finally {
        for (const u of unregister) u();
        await other.close();
      }
    });

    it("calls onAppended listeners after another store instance's append", async () => {
      const other = await createStore();
      let called = false;
      const unregister = other.onAppended(() => (called = true));
      try {
        // The listener's connection comes up asynchronously: append until a hint arrives.
        while (!called) {
          await store.appendToStream(stream('hint'), [event('Hinted')]);
          await delay(20);
        }
      } finally {
        unregister();
        await other.close();
      }
    });
  });

  describe('concurrency', () => {
    it('8 writers append 10,000 events to many streams while one reader pages readAll: it sees each exactly once', async function () {
      this.timeout(300_000);
      const WRITERS = 8;
      const TOTAL = 10_000;
      const STALLED_MS = 30_000;
      const marker = await store.appendToStream(stream('marker'), [event('Marker')]);
      const committed = new Set<string>();
      let remaining = TOTAL;
      const hot = [stream('hot'), stream('hot')];

      async function writer(w: number) {
        const own = Array.from({ length: 20 }, () => ({
          name: stream(`w${w}`),
          revision: NO_STREAM as ExpectedRevision,
        }));
        for (let k = 0; remaining > 0; k++) {
          const size = Math.min(remaining, 1 + ((w + k) % 5));
          remaining -= size;
          const batch = Array.from({ length: size }, (_, i) => event('Written', { w, k, i }));
          if (k % 10 === 0) {
            // contended streams: ANY must still append (the PostgreSQL adapter retries its insert)
            await store.appendToStream(hot[k % 2]!, batch, { expectedRevision: ANY });
          } else {
            const target = own[k % own.length]!;
            target.revision = (
              await store.appendToStream(target.name, batch, { expectedRevision: target.revision })
            ).nextExpectedRevision;
          }
          for (const e of batch) committed.add(e.id!);
        }
      }

      const seen = new Set<string>();
      let writersDone = false;
      let writeFailed = false;
      let lastProgress = Date.now();
      const reader = follow(
        store,
        marker.position,
        100,
        (e) => {
          if (!e.streamId.startsWith(prefix)) return;
          if (seen.has(e.id)) expect.fail(`event ${e.id} read twice`);
          seen.add(e.id);
          lastProgress = Date.now();
        },
        // Not a speed limit: a reader that skipped events would wait for them forever, so once
        // the writers are done, a long stretch without anything new ends the wait and the
        // assertions below name what was skipped.
        () => writeFailed || (writersDone && (seen.size >= committed.size || Date.now() - lastProgress > STALLED_MS)),
      );
      const writing = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w))).then(
        () => (writersDone = true),
        (err: unknown) => {
          writeFailed = writersDone = true;
          throw err;
        },
      );
      await Promise.all([reader, writing]);

      expect(committed.size).to.equal(TOTAL);
      const skipped = [...committed].filter((id) => !seen.has(id));
      expect(skipped, `${skipped.length} committed events never read`).to.deep.equal([]);
      expect(seen.size).to.equal(TOTAL);
      for (const h of hot) {
        const events = await store.readStream(h);
        expect(events.map((e) => e.revision)).to.deep.equal(events.map((_, k) => BigInt(k)));
      }
    });
  });
}
