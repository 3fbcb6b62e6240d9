import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { createDb, type Knex } from '../../src/infra/db.js';
import { partitionOf } from '../../src/domain/shared/partitions.js';
import { inPartitions } from '../../src/projections/partitions.js';
import {
  holdPartitions,
  migrateReactorPartitions,
  type LeaseHandlers,
  type PartitionLeases,
} from '../../src/runtime/live/partitions.js';
import { eventually } from '../support/processes.js';

// Partition leases on the real database: the SQL filter agrees with partitionOf, a second worker's
// arrival makes the first hand half over (finished first), and a worker's leaving gives the other all.

describe('partition leases (reactors.partitions)', function () {
  this.timeout(60_000);
  let db: Knex;
  const open: PartitionLeases[] = [];
  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    await migrateReactorPartitions(db);
  });
  after(async () => {
    for (const l of open) await l.close().catch(() => undefined);
    await db.destroy();
  });

  it('the SQL filter keeps exactly the accounts partitionOf puts in the partitions given', async () => {
    const ids = Array.from({ length: 200 }, () => randomUUID());
    const held = [1, 4, 6];
    const expected = ids.filter((id) => held.includes(partitionOf(id, 7)));
    expect(expected.length).to.be.greaterThan(0);
    // account ids as the read models hold them (uuid) and as text
    for (const type of ['uuid', 'text']) {
      const rows: Array<{ id: string }> = await db
        .select('id')
        .from(db.raw(`unnest(?::${type}[]) as a(id)`, [ids]))
        .modify((q) => inPartitions(q, 'id', { count: 7, held }));
      expect(rows.map((r) => r.id).sort(), type).to.deep.equal(expected.sort());
    }
  });

  it('two workers share the partitions half each; when one leaves the other holds them all', async () => {
    const name = `leases-test-${randomUUID().slice(0, 8)}`;
    const events: string[] = [];
    const handlers = (who: string): LeaseHandlers => ({
      claimed: (p) => void events.push(`${who} claimed ${p}`),
      lost: (p) => void events.push(`${who} lost ${p}`),
      release: async (p) => void events.push(`${who} released ${p}`),
    });
    const start = async () => ({ commit: 5n, prepare: 7n });
    const options = { db, name, count: 4, start, logger: pino({ level: 'silent' }), ttlMs: 1_000, renewEveryMs: 100 };
    const a = await holdPartitions({ ...options, handlers: handlers('a') });
    open.push(a);
    expect(a.held().sort()).to.deep.equal([0, 1, 2, 3]);
    await a.save(new Map([[2, { commit: 9n, prepare: 1n }]]));

    const b = await holdPartitions({ ...options, handlers: handlers('b') });
    open.push(b);
    await eventually(async () => (a.held().length === 2 && b.held().length === 2 ? true : undefined), 'half each');
    expect(events).to.include.members(['a released 2', 'a released 3', 'b claimed 2', 'b claimed 3']);
    // b's partition 2 starts where a saved it; a can no longer move it
    await a.save(new Map([[2, { commit: 10n, prepare: 0n }]]));
    const row = await db.table('reactors.partitions').where({ name, partition: 2 }).first();
    expect(row).to.include({ owner: b.worker, commit_position: '9', prepare_position: '1' });

    await a.close();
    await eventually(async () => (b.held().length === 4 ? true : undefined), 'b to hold all');
    expect(b.held().sort()).to.deep.equal([0, 1, 2, 3]);
  });

  it('refuses a worker given another count than the partitions made', async () => {
    const name = `leases-test-${randomUUID().slice(0, 8)}`;
    const options = {
      db,
      name,
      start: async () => ({ commit: 0n, prepare: 0n }),
      logger: pino({ level: 'silent' }),
      handlers: { claimed() {}, lost() {}, release: async () => {} },
    };
    open.push(await holdPartitions({ ...options, count: 4 }));
    let error: unknown;
    await holdPartitions({ ...options, count: 8 }).catch((err: unknown) => (error = err));
    expect(String(error)).to.include(`${name} has 4 partitions and this worker was given 8`);
  });
});
