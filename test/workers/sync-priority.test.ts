import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { scheduleSyncs, syncQueue, syncWorker } from '../../src/workers/sync/queue.js';
import { syncJobs } from '../../src/workers/sync/registry.js';
import type { SyncDeps } from '../../src/workers/sync/job.js';
import { dropRedisKeys, TEST_REDIS_PREFIX } from '../support/env.js';
import { eventually } from '../support/processes.js';
import { createLogger } from '../../src/infra/logger.js';

// The order a worker takes the registry's syncs in, through the real queue: an account connected
// after another has its entity syncs (listings, catalog, inventory, ads entities) taken before the
// first account's history syncs (a year of reports), so its listings and campaigns show at once.
// The runs only record when they were taken: the order is the queue's, whatever a sync does.

describe('sync worker: entities before history', function () {
  this.timeout(30_000);
  const prefix = `${TEST_REDIS_PREFIX}-sync-priority-${randomUUID().slice(0, 8)}`;
  let redis: Redis;

  before(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  });
  after(async () => {
    redis.disconnect();
    await dropRedisKeys(`${prefix}*`);
  });

  it("a second account's entity syncs are taken before the first account's history", async () => {
    const queue = syncQueue(redis, prefix);
    const [first, second] = [randomUUID(), randomUUID()];
    await scheduleSyncs(queue, syncJobs, first);
    await scheduleSyncs(queue, syncJobs, second);
    const taken: string[] = [];
    const recording = syncJobs.map((job) => ({
      ...job,
      run: async (_: SyncDeps, account_id: string) => {
        taken.push(`${account_id === first ? 'first' : 'second'}:${job.name}`);
        return { recorded: 0 };
      },
    }));
    const deps = { logger: createLogger('silent') } as unknown as SyncDeps;
    const worker = syncWorker({ ...deps, connection: redis, prefix }, recording);
    try {
      await eventually(async () => (taken.length === 2 * syncJobs.length ? true : undefined), 'every sync taken');
    } finally {
      await worker.close();
      await queue.close();
    }
    const entities = syncJobs.filter((j) => !j.priority).map((j) => j.name);
    expect(entities).to.have.members(['listings', 'catalog-items', 'fba-inventory', 'ads-entities']);
    const firstHistory = taken.findIndex((t) => !entities.includes(t.split(':')[1]!));
    expect(taken.slice(0, firstHistory)).to.have.members(
      ['first', 'second'].flatMap((account) => entities.map((name) => `${account}:${name}`)),
    );
    expect(taken.slice(firstHistory).every((t) => !entities.includes(t.split(':')[1]!))).to.equal(true);
  });
});
