import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { SWEPT_JOB_OPTIONS } from '../sweeps.js';
import { Dispatcher, type DispatcherDeps } from './dispatcher.js';

// The dispatch queue on BullMQ: `dispatch` jobs (one per receipt, jobId = receipt id) work
// through the receipt's target; `reconcile` jobs check an uncertain receipt. Admission adds a
// receipt's job as soon as it is queued. Redis holds only work: a sweep over the read model
// re-enqueues whatever is pending, at start-up and every `sweepEveryMs`, so flushing Redis (or a
// notice admission could not deliver) loses nothing.

export const DISPATCH_QUEUE = 'mutation-dispatch';

export interface DispatchJob {
  receipt_id: string;
}

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
  await queue.addBulk(
    jobs.map((j) => ({ name: j.name, data: { receipt_id: j.receipt_id }, opts: { jobId: j.jobId } })),
  );
};

/** Dispatch jobs for receipts just admitted queued, keyed as the sweep keys them, so adding one twice is a no-op. */
export function enqueueDispatch(queue: Queue<DispatchJob>, receiptIds: readonly string[]): Promise<void> {
  return addAll(
    queue,
    receiptIds.map((id) => ({ name: 'dispatch', receipt_id: id, jobId: id })),
  );
}

export function dispatchQueue(connection: Redis, prefix: string): Queue<DispatchJob> {
  return new Queue<DispatchJob>(DISPATCH_QUEUE, {
    connection,
    prefix,
    // finished jobs are removed (failures are logged) so the sweep can add a receipt's job again
    defaultJobOptions: SWEPT_JOB_OPTIONS,
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
    async (job) =>
      job.name === 'reconcile'
        ? dispatcher.reconcile(job.data.receipt_id)
        : dispatcher.dispatchFor(job.data.receipt_id),
    // a killed worker's jobs come back after about 15 s (a live worker renews its locks)
    {
      connection: o.connection,
      prefix: o.prefix,
      concurrency: o.concurrency ?? 4,
      lockDuration: 10_000,
      stalledInterval: 5_000,
    },
  );
  // e.g. a job whose keys were flushed from Redis mid-run: the sweep adds it again
  worker.on('error', (err) => o.logger.warn({ err: err.message }, 'dispatch worker error'));
  queue.on('error', (err) => o.logger.warn({ err: err.message }, 'dispatch queue error'));
  worker.on('failed', (job, err) =>
    o.logger.warn({ job: job?.name, receipt_id: job?.data.receipt_id, err: err.message }, 'dispatch job failed'),
  );
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
