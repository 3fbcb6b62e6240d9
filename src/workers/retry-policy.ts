import { UnrecoverableError } from 'bullmq';
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
    if (err instanceof DomainError || (err instanceof MarketplaceError && !err.retryable)) throw new UnrecoverableError(err.message);
    throw err;
  }
}
