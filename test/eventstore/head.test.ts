import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { createDb } from '../../src/infra/db.js';
import { comparePositions, type EventStore } from '../../src/eventstore/port.js';
import { Projector } from '../../src/projections/projector.js';
import type { Projection } from '../../src/projections/projection.js';
import { migrateProjections } from '../../src/projections/schema.js';
import { ADMIN_DATABASE_URL } from '../support/env.js';
import { usePgEventStore } from '../support/pg-event-store.js';
import { eventually } from '../support/processes.js';

// headPosition names the last committed event even while readAll still hides it behind an
// older open transaction that appends, so "caught up to the head" can't be declared before it
// is applied. A transaction that writes no events hides nothing.
describe('event store: head position', () => {
  const pgStore = usePgEventStore();

  it('is the last committed event, visible to readAll yet or not', async () => {
    const { store, client: older } = pgStore;
    // an older transaction appends and stays open, so later commits stay hidden from readAll
    await older.query('begin');
    await appendOpen(older);
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

  it('does not hide later appends behind an open transaction that wrote something else', async () => {
    const { store, client: older } = pgStore;
    await older.query('begin');
    await older.query('create temporary table head_other_write (n int)');
    await older.query('insert into head_other_write values (1)');
    try {
      const appended = await store.appendToStream(`head-${randomUUID()}`, [{ type: 'Soon', data: {} }]);
      // visible while that transaction stays open (other files' appends in flight may hide it a moment)
      const after = { commit: appended.position.commit - 1n, prepare: 0n };
      await eventually(async () => {
        const page = await store.readAll({ after, limit: 1000 });
        return page.some((e) => comparePositions(e.position, appended.position) === 0) || undefined;
      }, 'readAll to show the append');
      // and that transaction may not append now: its xid predates the readers' horizon
      const late = await older.query('savepoint late').then(() =>
        appendOpen(older).then(
          () => null,
          (e: Error) => e,
        ),
      );
      expect(late?.message).to.match(/events must be the first write of their transaction/);
    } finally {
      await older.query('rollback');
    }
  });

  it('projects appends while another database holds a write transaction open (the server-wide xmin no longer counts)', async () => {
    const { store, url } = pgStore;
    const other = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
    await other.connect();
    const { stream, seen, projector, stop } = await probeProjector(store, url, 'OtherDbProbe');
    try {
      // a long write transaction elsewhere on the server: a migration, another tenant's batch
      await other.query('begin');
      await other.query('create temporary table head_elsewhere (n int)');
      await other.query('insert into head_elsewhere values (1)');
      const appended = await store.appendToStream(stream, [{ type: 'OtherDbProbe', data: {} }]);
      // caught up while that transaction is still open
      await projector.whenCaughtUp(appended.position);
      expect(seen).to.have.length(1);
      expect((await other.query('select pg_current_xact_id_if_assigned() is not null as open')).rows[0].open).to.equal(
        true,
      );
    } finally {
      await other.query('rollback').catch(() => undefined);
      await other.end();
      await stop();
    }
  });

  it('makes whenCaughtUp() wait for an event readAll was still hiding', async () => {
    const { store, client: older, url } = pgStore;
    const { stream, seen, projector, stop } = await probeProjector(store, url, 'Probe');
    try {
      await older.query('begin');
      await appendOpen(older);
      await store.appendToStream(stream, [{ type: 'Probe', data: {} }]);
      const caughtUp = projector.whenCaughtUp();
      // the event can't be applied while the older transaction is open; release it shortly
      setTimeout(() => void older.query('rollback'), 200);
      await caughtUp;
      expect(seen).to.have.length(1);
    } finally {
      await stop();
    }
  });
});

/** A started projector with one projection that notes the events of `type` in its own stream. */
async function probeProjector(store: EventStore, url: string, type: string) {
  const db = createDb(url);
  const stream = `head-${type}-${randomUUID()}`;
  const seen: string[] = [];
  const probe: Projection = {
    name: `head_${type.toLowerCase()}`,
    version: 1,
    handles: [type],
    tables: [],
    createTables: async () => undefined,
    apply: async (_trx, e) => void (e.streamId === stream && seen.push(e.id)),
  };
  await migrateProjections(db, [probe]);
  const projector = new Projector(db, store, [probe], { pollMs: 20 });
  projector.start();
  return {
    stream,
    seen,
    projector,
    async stop() {
      await projector.stop();
      await db.destroy();
    },
  };
}

/** Appends one event in the client's open transaction (an appender that hasn't committed). */
function appendOpen(client: { query(sql: string, values?: unknown[]): Promise<unknown> }) {
  return client.query(
    `insert into events (event_id, stream_id, stream_revision, type, data) values ($1, $2, 0, 'Open', '{}')`,
    [randomUUID(), `head-open-${randomUUID()}`],
  );
}
