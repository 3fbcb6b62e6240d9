import { expect } from 'chai';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { Job } from 'bullmq';
import { newId } from '../../src/domain/shared/ids.js';
import { connectionsQueue, connectionsWorker, whenAccountShown, type ConnectionSyncJob } from '../../src/workers/connections-queue.js';
import { streamName } from '../../src/commands/handler.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { dropRedisKeys } from '../support/env.js';
import { eventually } from '../support/processes.js';
import { startHarness, type Harness } from '../observed/reports-support.js';

// The data syncs are scheduled when a connection job completes, and they read the account's
// marketplaces and profiles from the read model: the job completes only once the accounts
// projection shows everything it recorded.

describe('connection sync job', function () {
  this.timeout(30_000);
  let h: Harness;
  let redis: Redis;
  const prefix = `${process.env.REDIS_PREFIX}-connections`;

  before(async () => {
    h = await startHarness([], [], Date.parse('2026-03-01T00:00:00Z'));
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  });
  after(async () => {
    redis?.disconnect();
    await h?.close();
    await dropRedisKeys(`${prefix}:*`);
  });

  const accountRow = (account_id: string) => h.db.withSchema('rm').table('accounts').where({ account_id }).first();

  it('completes only once the read model shows the account it connected, marketplaces and profiles included', async () => {
    await h.projector.stop();
    const deps = h.deps('');
    const worker = connectionsWorker({
      connection: redis,
      prefix,
      db: h.db,
      ctx: deps.ctx,
      lwa: deps.lwa,
      endpoints: deps.endpoints,
      credentials: () => ({ selling_refresh_token: 'Atzr|demo-seller', ads_refresh_token: 'Atzr|demo-advertiser' }),
      logger: pino({ level: 'silent' }),
    });
    // what the read model showed when the job completed, as the service's scheduleSyncs would see it
    const atCompletion = new Promise<Record<string, any> | undefined>((resolve) =>
      worker.on('completed', (job: Job<ConnectionSyncJob>) => void accountRow(job.data.account_id).then(resolve)),
    );
    const queue = connectionsQueue(redis, prefix);
    try {
      const account_id = newId();
      const job = await queue.add('sync', { user_id: newId(), account_id, credentials: 'seller' });
      // every connection event is recorded while the projector is stopped; the job keeps waiting
      await eventually(async () => {
        const types = (await h.store.readStream(streamName('account', account_id))).map((e) => e.type);
        return types.includes('AdvertisingProfilesObserved') ? types : undefined;
      }, 'the connection events to be recorded');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await job.getState()).to.equal('active');
      expect(await accountRow(account_id)).to.equal(undefined);

      h.projector.start();
      const row = await atCompletion;
      expect(row, 'the account row exists when the job completes').to.exist;
      expect(row!.selling.marketplaces.filter((m: { participating: boolean }) => m.participating)).to.have.length(5);
      expect(await h.db.withSchema('rm').table('advertising_profiles').where({ account_id })).to.not.be.empty;
    } finally {
      h.projector.start();
      await worker.close();
      await queue.close();
    }
  });

  it('gives up after its bound with an error naming the account, for the queue to retry', async () => {
    const account_id = newId();
    const deps = h.deps('');
    await h.projector.stop();
    try {
      await syncConnections(deps, { user_id: newId(), account_id, credentials: 'seller', selling_refresh_token: 'Atzr|demo-seller' });
      const error = await whenAccountShown(h.db, deps.ctx, account_id, 300).catch((err: Error) => err);
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message).to.contain(account_id).and.to.contain('after 0.3 s');
    } finally {
      h.projector.start();
    }
    await whenAccountShown(h.db, deps.ctx, account_id);
    expect(await accountRow(account_id)).to.exist;
  });
});
