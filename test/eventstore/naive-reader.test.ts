import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import pg from 'pg';
import type { Position, RecordedEvent } from '../../src/eventstore/port.js';
import { usePgEventStore } from '../support/pg-event-store.js';

// Why readers checkpoint on (transaction_id, global_position): a sequence value is taken at
// insert, but becomes visible at commit. Transaction A takes a lower global_position, B a
// higher one and commits first; a reader that checkpoints on global_position alone reads B,
// moves past A's number, and never sees A. The order of commits is forced here, not raced.
describe('event store: a reader checkpointing on global_position alone', () => {
  const pgStore = usePgEventStore();

  it('loses the event of a transaction that took a lower position but committed later; readAll does not', async () => {
    const { store, client: txA, url } = pgStore;
    const streamA = `naive-a-${randomUUID()}`;
    const streamB = `naive-b-${randomUUID()}`;
    const ours = (e: { stream_id?: string; streamId?: string }) =>
      [streamA, streamB].includes(e.stream_id ?? e.streamId ?? '');
    const start = await store.appendToStream(`naive-start-${randomUUID()}`, [{ type: 'Start', data: {} }]);

    // The naive reader: "where global_position > checkpoint order by global_position".
    let naiveCheckpoint = start.position.prepare;
    const naiveSeen: string[] = [];
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    const naivePoll = async () => {
      const { rows } = await reader.query<{ global_position: string; stream_id: string }>(
        'select global_position, stream_id from events where global_position > $1 order by global_position',
        [naiveCheckpoint.toString()],
      );
      for (const row of rows) {
        naiveCheckpoint = BigInt(row.global_position);
        if (ours(row)) naiveSeen.push(row.stream_id);
      }
    };
    // Our reader: the adapter's readAll, checkpointing on the position pair.
    let checkpoint: Position = start.position;
    const adapterSeen: RecordedEvent[] = [];
    const adapterPoll = async () => {
      for (const e of await store.readAll({ after: checkpoint, limit: 100 })) {
        checkpoint = e.position;
        if (ours(e)) adapterSeen.push(e);
      }
    };

    try {
      // A takes its global_position first and stays open.
      await txA.query('begin');
      const a = await txA.query<{ global_position: string }>(
        `insert into events (event_id, stream_id, stream_revision, type, data)
         values ($1, $2, 0, 'InsertedFirst', '{}') returning global_position`,
        [randomUUID(), streamA],
      );
      // B takes a higher one and commits.
      const b = await store.appendToStream(streamB, [{ type: 'CommittedFirst', data: {} }]);
      expect(b.position.prepare > BigInt(a.rows[0]!.global_position)).to.equal(true);

      await naivePoll();
      await adapterPoll();
      expect(naiveSeen).to.deep.equal([streamB]);
      expect(adapterSeen, 'readAll holds B back while A, with a lower transaction id, runs').to.deep.equal([]);

      await txA.query('commit');

      await naivePoll();
      expect(naiveSeen, 'the naive reader never sees A').to.deep.equal([streamB]);
      // readAll sees both once the oldest running transaction has moved past them (another
      // session on this server may still hold xmin back for a moment).
      while (adapterSeen.length < 2) {
        await adapterPoll();
        if (adapterSeen.length < 2) await delay(5);
      }
      await adapterPoll();
      expect(
        adapterSeen.map((e) => e.streamId),
        'readAll sees A then B, each once',
      ).to.deep.equal([streamA, streamB]);
    } finally {
      await txA.query('rollback').catch(() => undefined);
      await reader.end();
    }
  });
});
