import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { Worker } from 'bullmq';
import { pino } from 'pino';
import { connectionsWorker } from '../../src/workers/connections-queue.js';
import { keepSchedules, type RunningScheduleKeeper, type ScheduleQueues } from '../../src/workers/schedules.js';
import { scheduleQueues, schedulerKeys } from '../support/schedules.js';
import type { SyncJobDefinition } from '../../src/workers/sync/job.js';
import { syncWorker } from '../../src/workers/sync/queue.js';
import { ADS_TOKEN, SELLING_TOKEN } from '../support/marketplace.js';
import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX, testDatabaseUrl } from '../support/env.js';
import { eventually } from '../support/processes.js';
import { startHarness, type Harness } from '../support/observed.js';

// Redis loses the job schedulers (a flush, a failover to an empty replica) under a running
// worker: the keeper re-establishes every connection and data sync the read models call for
// within one of its intervals, and the workers run them again. Redis is on a prefix of this test.

describe('job schedulers survive the loss of Redis keys', function () {
  this.timeout(120_000);
  let h: Harness;
  let redis: Redis;
  let account: string;
  let queues: ScheduleQueues;
  let workers: Worker[];
  let keeper: RunningScheduleKeeper;
  const prefix = `${TEST_REDIS_PREFIX}-schedules-${randomUUID().slice(0, 8)}`;
  const database = `${TEST_DB_NAME}_schedules`;
  const probeRuns: string[] = [];
  const connectionRuns: string[] = [];
  /** a data sync that only counts its runs; due every minute, so a second run within the test is the keeper's doing */
  const probe: SyncJobDefinition = {
    name: 'probe',
    everyMs: 60_000,
    async run(_deps, account_id) {
      probeRuns.push(account_id);
      return { recorded: 0 };
    },
  };
  const schedulers = () => schedulerKeys(queues);

  before(async () => {
    // a database of its own: the keeper schedules every account it finds, and other files leave theirs
    await admin((c) => c.query(`create database "${database}"`));
    h = await startHarness([], [], Date.now(), 11, testDatabaseUrl(database));
    account = await h.connect('seller');
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    queues = scheduleQueues(redis, prefix);
    const deps = h.deps(SELLING_TOKEN);
    const connections = connectionsWorker({
      ...deps,
      connection: redis,
      prefix,
      credentials: (name) =>
        name === 'seller' ? { selling_refresh_token: SELLING_TOKEN, ads_refresh_token: ADS_TOKEN } : undefined,
    });
    connections.on('completed', (job) => connectionRuns.push(job.data.account_id));
    workers = [connections, syncWorker({ ...deps, connection: redis, prefix }, [probe])];
    keeper = keepSchedules({
      db: h.db,
      queues,
      jobs: [probe],
      hasCredentials: (name) => name === 'seller',
      everyMs: 500,
      logger: pino({ level: 'silent' }),
    });
  });
  after(async () => {
    await keeper?.close();
    for (const w of workers ?? []) await w.close();
    for (const q of Object.values(queues ?? {})) await q.close();
    redis?.disconnect();
    await h?.close();
    await dropRedisKeys(`${prefix}*`);
    await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
  });

  it("establishes the account's connection and data syncs and the retention at start-up; each runs at once", async () => {
    await eventually(
      async () => (probeRuns.length >= 1 && connectionRuns.length >= 1 ? true : undefined),
      'the first runs',
    );
    expect(await schedulers()).to.deep.equal([`connections-${account}`, 'event-retention', `probe-${account}`].sort());
    expect(probeRuns).to.deep.equal([account]);
  });

  it('leaves a scheduler that exists alone (an upsert would run it again at once)', async () => {
    expect(await keeper.sweep()).to.equal(0);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(probeRuns).to.have.length(1);
  });

  it('after the keys are deleted under the running workers, re-establishes them within an interval and the syncs run again', async () => {
    const [probes, connects] = [probeRuns.length, connectionRuns.length];
    await dropRedisKeys(`${prefix}:*`);
    await eventually(
      async () => (probeRuns.length > probes && connectionRuns.length > connects ? true : undefined),
      'the syncs to run again',
      20_000,
    );
    expect(await schedulers()).to.deep.equal([`connections-${account}`, 'event-retention', `probe-${account}`].sort());
    expect(probeRuns.at(-1)).to.equal(account);
    expect(connectionRuns.at(-1)).to.equal(account);
  });
});
