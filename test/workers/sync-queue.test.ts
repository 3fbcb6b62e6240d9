import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { Job, Queue, Worker } from 'bullmq';
import { economicsProjection } from '../../src/projections/observed/economics.js';
import { vSellerEconomics } from '../../src/projections/views/v_seller_economics.js';
import { economicsSync } from '../../src/workers/sync/reports-economics.js';
import { SYNC_RECOVERY, syncQueue, syncWorker, type SyncJobData } from '../../src/workers/sync/queue.js';
import type { SyncJobDefinition } from '../../src/workers/sync/job.js';
import { dropRedisKeys, TEST_REDIS_PREFIX } from '../support/env.js';
import { eventually } from '../support/processes.js';
import { DAY_MS, startHarness, type Harness } from '../support/observed.js';

// A report sync through the real queue and worker: while the marketplace hasn't finished its
// reports the job waits in the delayed set without spending its attempts, and completes once
// they are done; a job that waited as long as its own interval gives up to the next run. A run
// that fails is retried, the same job, with backoff, not left to its next interval.

const SELLER = 'Atzr|demo-seller';
/** A failed run's retries, short for the test (minutes in service). */
const RETRY = { firstMs: 300, longestMs: 1_000 };

describe('sync worker: a report sync waiting for its reports', function () {
  this.timeout(60_000);
  let h: Harness;
  let redis: Redis;
  let account: string;
  let base: string;
  const prefix = `${TEST_REDIS_PREFIX}-sync-queue-${randomUUID().slice(0, 8)}`;

  const setPaused = (paused: boolean) =>
    fetch(`${base}/_sim/reports/processing`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paused }),
    });

  before(async function () {
    this.timeout(120_000);
    h = await startHarness([economicsProjection], [vSellerEconomics], Date.parse('2026-03-10T09:00:00Z'));
    account = await h.connect('seller');
    // the year a first run reads, read now: the runs below read only the trailing week again
    await h.run(economicsSync, account, SELLER);
    base = h.simulator.endpoints().sellingApiUrl;
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  });
  after(async () => {
    redis?.disconnect();
    await h?.close();
    await dropRedisKeys(`${prefix}*`);
  });

  async function withWorker(
    definition: SyncJobDefinition,
    body: (queue: Queue<SyncJobData>, worker: Worker<SyncJobData>) => Promise<void>,
  ) {
    const queue = syncQueue(redis, `${prefix}-${definition.everyMs}`);
    const worker = syncWorker(
      {
        ...h.deps(SELLER),
        connection: redis,
        prefix: `${prefix}-${definition.everyMs}`,
        recovery: { ...SYNC_RECOVERY, retry: RETRY },
      },
      [definition],
    );
    try {
      await body(queue, worker);
    } finally {
      await setPaused(false);
      await worker.close();
      await queue.close();
    }
  }

  const stateOf = async (queue: Queue<SyncJobData>, id: string) => {
    const job = (await queue.getJob(id))!;
    return { state: await job.getState(), job };
  };
  /** The job once it completed; a job that failed fails the test with its reason. */
  const completed = (queue: Queue<SyncJobData>, id: string) =>
    eventually(async () => {
      const { state } = await stateOf(queue, id);
      // read again: the job was read before its state, so it may predate its completion (no return value yet)
      if (state === 'completed') return (await queue.getJob(id))!;
      return state === 'failed' ? Promise.reject(new Error((await queue.getJob(id))!.failedReason)) : undefined;
    }, 'the job to complete');

  it('waits in the delayed set, spending no attempt, and completes once the reports are done', async () => {
    // a day later: the trailing week read again holds a new day
    h.clock.ms += DAY_MS;
    const creates = () =>
      h.simulator.requests.list().filter((r) => r.method === 'POST' && r.path === '/dataKiosk/2023-11-15/queries')
        .length;
    const createdBefore = creates();
    await setPaused(true);
    await withWorker(economicsSync, async (queue) => {
      const added = await queue.add(economicsSync.name, { account_id: account });
      const waiting = await eventually(async () => {
        const { state, job } = await stateOf(queue, added.id!);
        return state === 'delayed' && (job.data.waits ?? 0) >= 2 ? job : undefined;
      }, 'the job to have waited twice');
      expect(waiting.attemptsMade, 'a wait is not an attempt').to.equal(0);
      expect(waiting.data.next_due).to.equal(waiting.timestamp + economicsSync.everyMs);

      await setPaused(false);
      const done = await completed(queue, added.id!);
      expect(done.returnvalue.recorded).to.be.greaterThan(0);
      expect(done.attemptsMade).to.equal(1);
      // one query per marketplace, polled through every wait, never created again (the first
      // create after the day's jump is sent twice: it renews the expired access token)
      expect(creates() - createdBefore).to.be.within(5, 6);
      await h.projector.whenCaughtUp();
      const newDay = new Date(h.clock.ms - DAY_MS).toISOString().slice(0, 10);
      const [rows] = await h.db
        .withSchema('rm')
        .table('seller_economics')
        .where({ account_id: account, date: newDay })
        .count<{ n: string }[]>('* as n');
      expect(Number(rows!.n), `rows of ${newDay}`).to.be.greaterThan(0);
    });
  });

  it('gives up to the next run before that is due, saying so', async () => {
    await setPaused(true);
    // a run polls its reports for about 2.5 s: 10 s leaves room for a wait or two
    const impatient = { ...economicsSync, everyMs: 10_000 };
    await withWorker(impatient, async (queue) => {
      const added = await queue.add(impatient.name, { account_id: account });
      const failed: Job<SyncJobData> = await eventually(async () => {
        const { state, job } = await stateOf(queue, added.id!);
        return state === 'failed' ? job : undefined;
      }, 'the job to give up');
      expect(failed.failedReason).to.match(
        /not done yet .* after \d+ waits; the next run, due at \S+Z, picks them up$/,
      );
      expect(failed.data.waits).to.be.at.least(1);
      // its last run began before its give-up point, a tenth of its interval before the next run is due
      expect(failed.data.next_due).to.equal(failed.timestamp + impatient.everyMs);
      expect(failed.processedOn!).to.be.below(failed.data.next_due! - impatient.everyMs / 10);
    });
  });

  it('retries a failed run as the same job, with backoff, and completes', async () => {
    h.clock.ms += DAY_MS;
    // the marketplace refuses the first query outright (a 400 no retry of the client's helps)
    const fault = await fetch(`${base}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ route: 'POST /dataKiosk/2023-11-15/queries', kind: 'reject', status: 400, times: 1 }),
    });
    expect(fault.status).to.equal(201);
    await withWorker(economicsSync, async (queue) => {
      const added = await queue.add(economicsSync.name, { account_id: account });
      const done = await completed(queue, added.id!);
      expect(done.data.failures, 'one failure, then the retry that completed').to.equal(1);
      expect(done.returnvalue.recorded).to.be.greaterThan(0);
      // its retry waited out the backoff, in the delayed set
      expect(done.finishedOn! - done.timestamp).to.be.at.least(RETRY.firstMs);
      expect(await queue.getJobs(['waiting', 'delayed', 'active']), 'no retry job left beside it').to.deep.equal([]);
    });
  });
});
