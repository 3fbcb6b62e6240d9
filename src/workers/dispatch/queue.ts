import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { waitInDelayedSet } from '../retry-policy.js';
import { Dispatcher, type DispatcherDeps } from './dispatcher.js';

// The dispatch queue on BullMQ: `dispatch` jobs (one per receipt, jobId = receipt id) work
// through the receipt's target; `reconcile` jobs check an uncertain receipt. Admission adds a
// receipt's job as soon as it is queued. Redis holds only work: a sweep over the read model
// re-enqueues whatever is pending, at start-up and every `sweepEveryMs`, so flushing Redis (or a
// notice admission could not deliver) loses nothing.

export const DISPATCH_QUEUE = 'mutation-dispatch';

export interface DispatchJob {
  receipt_id: string;
  /** a dispatch job waiting for the read model to show its receipt: since when (ms) */
  unshown_since?: number;
}

/**
 * A dispatch job whose receipt the read model doesn't show yet (the projector is behind) polls
 * briefly, then waits in the delayed set, holding no worker slot (reconciliation checks and other
 * targets go on meanwhile); after 30 s it is left to the sweep, which enqueues what the read model shows.
 */
export const RECEIPT_SHOWN_WAIT = { inJobMs: 1_000, recheckMs: 500, leftToSweepAfterMs: 30_000 };

export interface DispatchWorkerOptions extends Omit<DispatcherDeps, 'later'> {
  connection: Redis;
  prefix: string;
  sweepEveryMs: number;
  concurrency?: number;
  logger: Logger;
}

export interface RunningDispatch {
  queue: Queue<DispatchJob>;
  worker: Worker<DispatchJob>;
  dispatcher: Dispatcher;
  /** Re-enqueues every pending receipt now (also done periodically). */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

type Work = { name: 'dispatch' | 'reconcile'; receipt_id: string; jobId: string };

const addAll = async (queue: Queue<DispatchJob>, jobs: readonly Work[]) => {
  await queue.addBulk(jobs.map((j) => ({ name: j.name, data: { receipt_id: j.receipt_id }, opts: { jobId: j.jobId } })));
};

/** Dispatch jobs for receipts just admitted queued, keyed as the sweep keys them, so adding one twice is a no-op. */
export function enqueueDispatch(queue: Queue<DispatchJob>, receiptIds: readonly string[]): Promise<void> {
  return addAll(queue, receiptIds.map((id) => ({ name: 'dispatch', receipt_id: id, jobId: id })));
}

export function dispatchQueue(connection: Redis, prefix: string): Queue<DispatchJob> {
  return new Queue<DispatchJob>(DISPATCH_QUEUE, {
    connection,
    prefix,
    // finished jobs are removed (failures are logged) so the sweep can add a receipt's job again
    defaultJobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: true },
  });
}

export async function startDispatch(o: DispatchWorkerOptions): Promise<RunningDispatch> {
  const queue = dispatchQueue(o.connection, o.prefix);
  const dispatcher = new Dispatcher({
    ...o,
    later: async ({ name, receipt_id, jobId, at }) => {
      await queue.add(name, { receipt_id }, { jobId, delay: Math.max(0, at - o.now()) });
    },
  });
  const worker = new Worker<DispatchJob>(
    DISPATCH_QUEUE,
    async (job, token) => {
      const { receipt_id } = job.data;
      if (job.name === 'reconcile') return dispatcher.reconcile(receipt_id);
      if ((await dispatcher.dispatchFor(receipt_id, RECEIPT_SHOWN_WAIT.inJobMs)) === 'done') return;
      const since = job.data.unshown_since ?? Date.now();
      if (Date.now() - since >= RECEIPT_SHOWN_WAIT.leftToSweepAfterMs) {
        o.logger.warn({ receipt_id }, `the read model has not shown the receipt after ${RECEIPT_SHOWN_WAIT.leftToSweepAfterMs / 1000} s; left to the sweep`);
        return;
      }
      return waitInDelayedSet(job, token, { ...job.data, unshown_since: since }, RECEIPT_SHOWN_WAIT.recheckMs);
    },
    // a killed worker's jobs come back after about 15 s (a live worker renews its locks)
    { connection: o.connection, prefix: o.prefix, concurrency: o.concurrency ?? 4, lockDuration: 10_000, stalledInterval: 5_000 },
  );
  // e.g. a job whose keys were flushed from Redis mid-run: the sweep adds it again
  worker.on('error', (err) => o.logger.warn({ err: err.message }, 'dispatch worker error'));
  queue.on('error', (err) => o.logger.warn({ err: err.message }, 'dispatch queue error'));
  worker.on('failed', (job, err) => o.logger.warn({ job: job?.name, receipt_id: job?.data.receipt_id, err: err.message }, 'dispatch job failed'));
  const sweep = () => dispatcher.sweep((jobs) => addAll(queue, jobs));
  let sweeping: Promise<unknown> = sweep().catch((err: unknown) => o.logger.error({ err }, 'dispatch sweep failed'));
  const timer = setInterval(() => {
    sweeping = sweep().catch((err: unknown) => o.logger.error({ err }, 'dispatch sweep failed'));
  }, o.sweepEveryMs);
  return {
    queue,
    worker,
    dispatcher,
    sweep,
    async close() {
      clearInterval(timer);
      await sweeping;
      await worker.close();
      await queue.close();
    },
  };
}
