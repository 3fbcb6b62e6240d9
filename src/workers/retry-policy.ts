import { DelayedError, UnrecoverableError, type DefaultJobOptions, type Job } from 'bullmq';
import { DomainError } from '../domain/shared/errors.js';
import { MarketplaceError } from '../marketplace/clients/index.js';

/**
 * Runs a job's work, turning failures a retry can't fix (a domain refusal, a marketplace
 * refusal that isn't throttling or an outage) into BullMQ's UnrecoverableError; anything
 * else is rethrown as is and retried with backoff.
 */
export async function withRetryPolicy<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError || (err instanceof MarketplaceError && !err.retryable))
      throw new UnrecoverableError(err.message);
    throw err;
  }
}

/**
 * Puts the active job back in BullMQ's delayed set for `ms`, with `data` saying what its next run
 * needs to know of the wait: no attempt spent, no worker slot held meanwhile.
 */
export async function waitInDelayedSet<T>(job: Job<T>, token: string | undefined, data: T, ms: number): Promise<never> {
  await job.updateData(data);
  await job.moveToDelayed(Date.now() + ms, token);
  throw new DelayedError();
}

/**
 * A queue's job options: `attempts` tries, the retries backing off exponentially from
 * `firstRetryMs`, the last `keepCompleted` finished and `keepFailed` failed jobs kept to look at.
 */
export const retriedJobs = (o: {
  attempts: number;
  firstRetryMs: number;
  keepCompleted: number;
  keepFailed: number;
}): DefaultJobOptions => ({
  attempts: o.attempts,
  backoff: { type: 'exponential', delay: o.firstRetryMs },
  removeOnComplete: o.keepCompleted,
  removeOnFail: o.keepFailed,
});
