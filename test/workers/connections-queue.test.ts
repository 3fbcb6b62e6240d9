import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { Job, Queue, Worker } from 'bullmq';
import { newId } from '../../src/domain/shared/ids.js';
import {
  accountShown,
  connectionsQueue,
  connectionsWorker,
  ACCOUNT_SHOWN_WAIT,
  type ConnectionSyncJob,
} from '../../src/workers/connections-queue.js';
import { streamName } from '../../src/commands/shared/handler.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { dropRedisKeys, TEST_REDIS_PREFIX } from '../support/env.js';
import { eventually } from '../support/processes.js';
import { startHarness, type Harness } from '../support/observed.js';

// The data syncs are scheduled when a connection job completes, and they read the account's
// marketplaces and profiles from the read model: the job completes only once the accounts
// projection shows everything it recorded. It waits for that in BullMQ's delayed set.

describe('connection sync job', function () {
  this.timeout(30_000);
  let h: Harness;
  let redis: Redis;
  const prefix = `${TEST_REDIS_PREFIX}-connections-${randomUUID().slice(0, 8)}`;

  before(async () => {
    h = await startHarness([], [], Date.parse('2026-03-01T00:00:00Z'));
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  });
  after(async () => {
    redis?.disconnect();
    await h?.close();
    await dropRedisKeys(`${prefix}*`);
  });

  const accountRow = (account_id: string) => h.db.withSchema('rm').table('accounts').where({ account_id }).first();
  const participationReads = () =>
    h.simulator.requests.list().filter((r) => r.path === '/sellers/v1/marketplaceParticipations').length;

  /** A connections queue and worker of their own, with the projector stopped until `body` starts it. */
  async function withStoppedProjector(
    shownWait: typeof ACCOUNT_SHOWN_WAIT,
    body: (queue: Queue<ConnectionSyncJob>, worker: Worker<ConnectionSyncJob>) => Promise<void>,
  ) {
    await h.projector.stop();
    const deps = h.deps('');
    const own = `${prefix}-${randomUUID().slice(0, 8)}`;
    const worker = connectionsWorker({
      connection: redis,
      prefix: own,
      db: h.db,
      ctx: deps.ctx,
      lwa: deps.lwa,
      endpoints: deps.endpoints,
      credentials: () => ({ selling_refresh_token: 'Atzr|demo-seller', ads_refresh_token: 'Atzr|demo-advertiser' }),
      logger: pino({ level: 'silent' }),
      shownWait,
    });
    const queue = connectionsQueue(redis, own);
    try {
      await body(queue, worker);
    } finally {
      h.projector.start();
      await worker.close();
      await queue.close();
    }
  }

  it('completes only once the read model shows the account, marketplaces and profiles included; it waits off the worker, reading the marketplace once', async () => {
    await withStoppedProjector({ inJobMs: 200, recheckMs: 200, givenUpAfterMs: 60_000 }, async (queue, worker) => {
      // what the read model showed when the job completed, as the service's scheduleSyncs would see it
      const atCompletion = new Promise<Record<string, any> | undefined>((resolve) =>
        worker.on('completed', (job: Job<ConnectionSyncJob>) => void accountRow(job.data.account_id).then(resolve)),
      );
      const readsBefore = participationReads();
      const account_id = newId();
      const added = await queue.add('sync', { user_id: newId(), account_id, credentials: 'seller' });
      // every connection event is recorded while the projector is stopped; the job waits delayed
      const waiting = await eventually(async () => {
        const job = (await queue.getJob(added.id!))!;
        return (await job.getState()) === 'delayed' && job.data.shown_wait_since ? job : undefined;
      }, 'the job to wait in the delayed set');
      expect(waiting.attemptsMade, 'a wait is not an attempt').to.equal(0);
      expect(waiting.data.recorded).to.be.greaterThan(0);
      const types = (await h.store.readStream(streamName('account', account_id))).map((e) => e.type);
      expect(types).to.include.members(['SellingParticipationsObserved', 'AdvertisingProfilesObserved']);
      expect(await accountRow(account_id)).to.equal(undefined);

      h.projector.start();
      const row = await atCompletion;
      expect(row, 'the account row exists when the job completes').to.exist;
      expect(row!.selling.marketplaces.filter((m: { participating: boolean }) => m.participating)).to.have.length(5);
      expect(await h.db.withSchema('rm').table('advertising_profiles').where({ account_id })).to.not.be.empty;
      expect(participationReads() - readsBefore, 'the waits read the marketplace no more').to.equal(1);
    });
  });

  it('gives up after its bound with an error naming the account, leaving it to the next connection sync', async () => {
    await withStoppedProjector({ inJobMs: 100, recheckMs: 200, givenUpAfterMs: 1_000 }, async (queue) => {
      const account_id = newId();
      const added = await queue.add('sync', { user_id: newId(), account_id, credentials: 'seller' });
      const failed = await eventually(async () => {
        const job = (await queue.getJob(added.id!))!;
        return (await job.getState()) === 'failed' ? job : undefined;
      }, 'the job to give up');
      expect(failed.failedReason)
        .to.contain(account_id)
        .and.to.contain('after 1 s')
        .and.to.contain('the next connection sync tries again');
      expect(failed.attemptsMade, 'given up, not retried').to.equal(1);
    });
  });

  it('accountShown: false while the projector has not applied the stream, true once it has', async () => {
    const account_id = newId();
    const deps = h.deps('');
    await h.projector.stop();
    try {
      await syncConnections(deps, {
        user_id: newId(),
        account_id,
        credentials: 'seller',
        selling_refresh_token: 'Atzr|demo-seller',
      });
      expect(await accountShown(h.db, deps.ctx, account_id, 300)).to.equal(false);
    } finally {
      h.projector.start();
    }
    expect(await accountShown(h.db, deps.ctx, account_id, 10_000)).to.equal(true);
    expect(await accountRow(account_id)).to.exist;
  });
});
