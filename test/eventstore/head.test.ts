import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createDb } from '../../src/infra/db.js';
import { comparePositions } from '../../src/eventstore/port.js';
import { Projector } from '../../src/projections/projector.js';
import type { Projection } from '../../src/projections/projection.js';
import { migrateProjections } from '../../src/projections/schema.js';
import { usePgEventStore } from '../support/pg-event-store.js';

// headPosition names the last committed event even while readAll still hides it behind an
// older open transaction, so "caught up to the head" can't be declared before it is applied.
describe('event store: head position', () => {
  const pgStore = usePgEventStore();

  it('is the last committed event, visible to readAll yet or not', async () => {
    const { store, client: older } = pgStore;
    // an older transaction holds an xid open, so later commits stay hidden from readAll
    await older.query('begin');
    await older.query('select pg_current_xact_id()');
    try {
      const appended = await store.appendToStream(`head-${randomUUID()}`, [{ type: 'Late', data: {} }]);
      const head = await store.headPosition();
      expect(head).to.deep.equal(appended.position);
      const visible = [];
      for (let after = null as typeof head; ;) {
        const page = await store.readAll({ after, limit: 1000 });
        if (page.length === 0) break;
        visible.push(...page);
        after = page[page.length - 1]!.position;
      }
      expect(
        visible.some((e) => comparePositions(e.position, appended.position) === 0),
        'readAll still hides it',
      ).to.equal(false);
    } finally {
      await older.query('rollback');
    }
  });

  it('makes whenCaughtUp() wait for an event readAll was still hiding', async () => {
    const { store, client: older, url } = pgStore;
    const db = createDb(url);
    const seen: string[] = [];
    const stream = `head-wait-${randomUUID()}`;
    const probe: Projection = {
      name: 'head_probe',
      version: 1,
      handles: ['Probe'],
      tables: [],
      createTables: async () => undefined,
      apply: async (_trx, e) => void (e.streamId === stream && seen.push(e.id)),
    };
    await migrateProjections(db, [probe]);
    const projector = new Projector(db, store, [probe], { pollMs: 20 });
    projector.start();
    try {
      await older.query('begin');
      await older.query('select pg_current_xact_id()');
      await store.appendToStream(stream, [{ type: 'Probe', data: {} }]);
      const caughtUp = projector.whenCaughtUp();
      // the event can't be applied while the older transaction is open; release it shortly
      setTimeout(() => void older.query('rollback'), 200);
      await caughtUp;
      expect(seen).to.have.length(1);
    } finally {
      await projector.stop();
      await db.destroy();
    }
  });
});
