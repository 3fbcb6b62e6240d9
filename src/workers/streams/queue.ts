import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { aggregateStream, handleCommand, type CommandContext } from '../../commands/shared/handler.js';
import {
  subscriptionDecider,
  subscriptionId,
  subscriptionWanted,
  type SubscriptionCommand,
} from '../../domain/stream/subscription.js';
import { connectionFor, streamType } from '../../domain/stream/types.js';
import { MarketplaceError } from '../../marketplace/clients/index.js';
import { allStreamAccounts, subscriptionRows, typesOf } from '../../projections/streams/queries.js';
import { waitInDelayedSet, withRetryPolicy } from '../retry-policy.js';
import { startSweeps, SWEPT_JOB_OPTIONS } from '../sweeps.js';
import { providerError, type Subscriber } from './subscriber.js';

// Subscriptions (docs/decisions/066-stream-subscriptions.md). A sweep over the read models,
// at start-up and every `sweepEveryMs`, compares what should be subscribed (always types of
// connected accounts; while_needed types with a live automation, or within the grace period
// after the last one stopped) with each subscription's state: it records the request or the
// let-go through the subscription decider and enqueues one `reconcile` job per subscription
// with work to do (jobId = `<account>.<stream type>`, so a job already waiting is not doubled).
// The job does what the subscription's state asks of the marketplace and records the answer;
// an ads subscription still waiting for confirmation waits in the delayed set and looks again.
// At start-up and every `verifyEveryMs` the sweep also enqueues every active subscription: its
// job reads what the marketplace has, and one the marketplace lost (it restarted, or dropped the
// subscription or its destination) is recorded lost and subscribed again in the same job.
// A subscription has at most one job at a time (its jobId), so its subscribe and unsubscribe never
// overlap; jobs of different types run side by side.

export const STREAMS_QUEUE = 'stream-subscriptions';

export interface SubscriptionJob {
  account_id: string;
  stream_type: string;
}

export interface StreamsWorkerOptions {
  connection: Redis;
  prefix: string;
  db: Knex;
  ctx: CommandContext;
  subscriber: Subscriber;
  sweepEveryMs: number;
  /** how long a while_needed type stays subscribed after its last live automation stops */
  graceMs: number;
  /** how long a failed subscription waits before it is requested again */
  retryFailedMs: number;
  /** how often an ads subscription waiting for confirmation is looked at */
  confirmPollMs: number;
  /** how often every active subscription is checked at the marketplace */
  verifyEveryMs: number;
  now: () => Date;
  logger: Logger;
}

/** a command without the subscription's key and time, which `record` adds */
type Bare<C> = C extends SubscriptionCommand ? Omit<C, 'account_id' | 'stream_type' | 'at'> : never;

export interface RunningStreams {
  queue: Queue<SubscriptionJob>;
  sweep(): Promise<void>;
  close(): Promise<void>;
}

export async function startStreams(o: StreamsWorkerOptions): Promise<RunningStreams> {
  const queue = new Queue<SubscriptionJob>(STREAMS_QUEUE, {
    connection: o.connection,
    prefix: o.prefix,
    defaultJobOptions: SWEPT_JOB_OPTIONS,
  });

  const record = (job: SubscriptionJob, command: Bare<SubscriptionCommand>) =>
    handleCommand(
      subscriptionDecider,
      subscriptionId(job.account_id, job.stream_type),
      { ...job, ...command, at: o.now().toISOString() } as SubscriptionCommand,
      o.ctx,
    );

  async function reconcile(job: Job<SubscriptionJob>, token: string | undefined): Promise<void> {
    const t = streamType(job.data.stream_type);
    if (!t) return;
    const stateNow = async () =>
      (await aggregateStream(o.ctx.store, subscriptionDecider, subscriptionId(job.data.account_id, t.code))).state;
    let state = await stateNow();
    if (state.status === 'active') {
      const found = await o.subscriber.verify(job.data.account_id, t, state.subscription_ids);
      if (found.status === 'present') return;
      o.logger.warn({ ...job.data, error: found.error }, 'subscription lost at the marketplace; subscribing again');
      await record(job.data, { type: 'RecordLost', error: found.error });
      state = await stateNow();
    }
    if (state.status === 'unsubscribing') {
      await o.subscriber.unsubscribe(job.data.account_id, t);
      await record(job.data, { type: 'RecordUnsubscribed' });
      return;
    }
    if (state.status !== 'requested' && state.status !== 'pending') return;
    let answer;
    try {
      answer = await o.subscriber.subscribe(job.data.account_id, t, state.requests);
    } catch (err) {
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (!(err instanceof MarketplaceError) || (err.retryable && !lastAttempt)) throw err;
      answer = { status: 'failed' as const, error: providerError(err) };
    }
    if (answer.status === 'failed') {
      await record(job.data, { type: 'RecordFailed', error: answer.error });
      return;
    }
    const ids = { subscription_ids: answer.subscription_ids, destination_id: answer.destination_id };
    if (answer.status === 'active') {
      await record(job.data, { type: 'RecordSubscribed', ...ids });
      return;
    }
    await record(job.data, { type: 'RecordPending', ...ids });
    await waitInDelayedSet(job, token, job.data, o.confirmPollMs);
  }

  const worker = new Worker<SubscriptionJob>(
    STREAMS_QUEUE,
    (job, token) => withRetryPolicy(() => reconcile(job, token)),
    // a job of a process that died is taken up again within about 20 s (its id keeps the sweep
    // from adding another meanwhile), not BullMQ's minute: a restarted service resubscribes soon
    { connection: o.connection, prefix: o.prefix, concurrency: 4, lockDuration: 15_000, stalledInterval: 5_000 },
  );
  worker.on('error', (err) => o.logger.warn({ err: err.message }, 'stream subscriptions worker error'));
  queue.on('error', (err) => o.logger.warn({ err: err.message }, 'stream subscriptions queue error'));
  worker.on('failed', (job, err) =>
    o.logger.warn({ ...job?.data, err: err.message }, 'stream subscription job failed'),
  );

  // the first sweep verifies: a marketplace that restarted with us has forgotten everything
  let verifiedAt = Number.NEGATIVE_INFINITY;
  async function sweep(): Promise<void> {
    const now = o.now();
    const verify = now.getTime() - verifiedAt >= o.verifyEveryMs;
    const rows = await subscriptionRows(o.db, null);
    const work: SubscriptionJob[] = [];
    for (const account of await allStreamAccounts(o.db))
      for (const t of typesOf(account)) {
        if (t.policy === 'not_required') continue;
        const job = { account_id: account.id, stream_type: t.code };
        const row = rows.get(subscriptionId(account.id, t.code));
        const status = row?.status ?? 'inactive';
        const need = {
          type: t,
          // an inactive connection (disconnected, refused, deactivated) wants no subscription
          runnable: account.active?.[connectionFor(t)] ?? true,
          live: Boolean(row?.live_automation_id),
          released_at: row?.released_at ?? null,
        };
        const retryDue = status === 'failed' && now.getTime() - Date.parse(row!.changed_at!) >= o.retryFailedMs;
        let command: Bare<SubscriptionCommand> | null = null;
        if (subscriptionWanted(need, now, o.graceMs)) {
          if (status === 'inactive' || status === 'unsubscribing' || retryDue)
            command = { type: 'RequestSubscription', seen: status };
        } else if (status !== 'inactive' && status !== 'unsubscribing') command = { type: 'RequestUnsubscribe' };
        const recorded = command ? (await record(job, command)).events.length > 0 : false;
        const due = status === 'requested' || status === 'pending' || status === 'unsubscribing';
        if (recorded || due || (verify && status === 'active')) work.push(job);
      }
    await queue.addBulk(
      work.map((data) => ({
        name: 'reconcile',
        data,
        opts: { jobId: subscriptionId(data.account_id, data.stream_type) },
      })),
    );
    // only now: a sweep that failed on its way verifies again at the next one
    if (verify) verifiedAt = now.getTime();
  }

  const sweeps = startSweeps(sweep, o.sweepEveryMs, o.logger, 'stream subscriptions sweep failed');
  return {
    queue,
    sweep,
    async close() {
      await sweeps.stop();
      await worker.close();
      await queue.close();
    },
  };
}
