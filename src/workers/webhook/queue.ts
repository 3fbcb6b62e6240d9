import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { LookupFunction } from 'node:net';
import type { Logger } from 'pino';
import {
  enqueueWebhookPosts,
  postAlert,
  sendTestWebhook,
  type WebhookNotifier,
  type WebhookPosts,
  type WebhookPostsResult,
} from '../../commands/webhook/posts.js';
import { DELIVERY_POLICY, type DeliveryPolicy } from '../../domain/webhook/retry.js';
import type { EventStore } from '../../eventstore/port.js';
import { pendingDeliveries } from '../../projections/webhook/queries.js';
import { waitInDelayedSet, withRetryPolicy } from '../retry-policy.js';
import { startSweeps, SWEPT_JOB_OPTIONS } from '../sweeps.js';
import { deliveryStep } from './deliver.js';
import { createPoster } from './post.js';

// The webhook delivery queue on BullMQ: one job per delivery (jobId = delivery id, so a delivery
// is never queued twice). A job makes the attempt that is due; when the delivery will retry, the
// job waits in the delayed set until the next attempt is due (no worker slot held). Redis holds
// only work: a sweep over the deliveries read model re-enqueues what is pending, at start-up and
// every `sweepEveryMs`, so a lost notice or a flushed Redis loses no delivery.

export const WEBHOOK_QUEUE = 'webhook-delivery';

export interface DeliveryJob {
  delivery_id: string;
}

export function webhookQueue(connection: Redis, prefix: string): Queue<DeliveryJob> {
  return new Queue<DeliveryJob>(WEBHOOK_QUEUE, {
    connection,
    prefix,
    // HTTP outcomes are recorded, not thrown: BullMQ's own attempts cover the database or the
    // store being away
    defaultJobOptions: SWEPT_JOB_OPTIONS,
  });
}

/** Jobs for these deliveries, due at once or at `due` (a job already there is left as it is). */
export async function enqueueWebhookDeliveries(
  queue: Queue<DeliveryJob>,
  deliveries: ReadonlyArray<{ delivery_id: string; due?: Date | null }>,
  now = Date.now(),
): Promise<void> {
  await queue.addBulk(
    deliveries.map(({ delivery_id, due }) => ({
      name: 'deliver',
      data: { delivery_id },
      opts: { jobId: delivery_id, delay: due ? Math.max(0, due.getTime() - now) : 0 },
    })),
  );
}

export const webhookNotifier = (queue: Queue<DeliveryJob>): WebhookNotifier => ({
  requested: (ids) =>
    enqueueWebhookDeliveries(
      queue,
      ids.map((delivery_id) => ({ delivery_id })),
    ),
});

export interface WebhookWorkerOptions {
  connection: Redis;
  prefix: string;
  db: Knex;
  store: EventStore;
  signingKey: string;
  allowPrivateNetworks: boolean;
  sweepEveryMs: number;
  logger: Logger;
  /** attempt timeout; spec 8's 10 s unless a test shortens it */
  timeoutMs?: number;
  policy?: DeliveryPolicy;
  concurrency?: number;
  /** DNS for the attempts' connections (tests) */
  lookup?: LookupFunction;
  now?: () => Date;
}

export interface RunningWebhooks {
  queue: Queue<DeliveryJob>;
  worker: Worker<DeliveryJob>;
  /** Records a live run's posts and enqueues them (see commands/webhook/posts.ts). */
  enqueueWebhookPosts(input: WebhookPosts): Promise<WebhookPostsResult>;
  /** Hands an alert to the account's webhook of this name (commands/webhook/posts.ts). */
  postAlert(input: Parameters<typeof postAlert>[1]): ReturnType<typeof postAlert>;
  /** "Send test" to the account's webhook of this name. */
  sendTest(input: { accountId: string; name: string; by: string }): Promise<{ delivery_id: string }>;
  /** Re-enqueues every pending delivery now (also done periodically). */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

const SWEEP_BATCH = 1000;

export function startWebhookDelivery(o: WebhookWorkerOptions): RunningWebhooks {
  const now = o.now ?? (() => new Date());
  const queue = webhookQueue(o.connection, o.prefix);
  const poster = createPoster({
    allowPrivateNetworks: o.allowPrivateNetworks,
    ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.lookup ? { lookup: o.lookup } : {}),
  });
  const deps = { store: o.store, poster, signingKey: o.signingKey, policy: o.policy ?? DELIVERY_POLICY, now };
  const step = async (job: Job<DeliveryJob>, token: string | undefined) => {
    const next = await deliveryStep(deps, job.data.delivery_id);
    if (next) await waitInDelayedSet(job, token, job.data, Math.max(0, next.getTime() - now().getTime()));
  };
  // attempts wait on the network (up to the timeout each): many run side by side
  const worker = new Worker<DeliveryJob>(WEBHOOK_QUEUE, (job, token) => withRetryPolicy(() => step(job, token)), {
    connection: o.connection,
    prefix: o.prefix,
    concurrency: o.concurrency ?? 16,
    lockDuration: 30_000,
  });
  worker.on('error', (err) => o.logger.warn({ err: err.message }, 'webhook delivery worker error'));
  queue.on('error', (err) => o.logger.warn({ err: err.message }, 'webhook delivery queue error'));
  worker.on('failed', (job, err) =>
    o.logger.warn({ delivery_id: job?.data.delivery_id, err: err.message }, 'webhook delivery job failed'),
  );
  const postDeps = { store: o.store, notifier: webhookNotifier(queue), logger: o.logger, now };
  const sweep = async () =>
    enqueueWebhookDeliveries(
      queue,
      (await pendingDeliveries(o.db, SWEEP_BATCH)).map((d) => ({ delivery_id: d.delivery_id, due: d.next_attempt_at })),
      now().getTime(),
    );
  const sweeps = startSweeps(sweep, o.sweepEveryMs, o.logger, 'webhook delivery sweep failed');
  return {
    queue,
    worker,
    enqueueWebhookPosts: (input) => enqueueWebhookPosts(postDeps, input),
    postAlert: (input) => postAlert(postDeps, input),
    sendTest: (input) => sendTestWebhook(postDeps, input),
    sweep,
    async close() {
      await sweeps.stop();
      await worker.close();
      await queue.close();
      poster.close();
    },
  };
}
