import { Queue, Worker, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { retriedJobs, waitInDelayedSet, withRetryPolicy } from '../retry-policy.js';
import type { SyncDeps, SyncJobDefinition } from './job.js';
import { ReportNotReady } from './reports.js';

export const SYNC_QUEUE = 'data-sync';

export interface SyncJobData {
  account_id: string;
  /** while its reports aren't done: when its next run is due (ms), and how often it has waited */
  next_due?: number;
  waits?: number;
}

/** Sync jobs a worker runs at once: a sync mostly waits on the marketplace and on the log's
 * commits, so a first sync's dozen jobs shouldn't queue two at a time behind the longest. */
const SYNC_CONCURRENCY = 4;

/** The waits of a job whose reports aren't done: doubling from the first, up to the longest. */
export const REPORT_WAITS_MS = { first: 1_000, longest: 60_000 };

export function syncQueue(connection: Redis, prefix: string): Queue<SyncJobData> {
  return new Queue<SyncJobData>(SYNC_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: retriedJobs({ attempts: 8, firstRetryMs: 1000, keepCompleted: 200, keepFailed: 500 }),
  });
}

/** The job scheduler of one sync of an account. */
export const syncSchedulerId = (name: string, account_id: string) => `${name}-${account_id}`;

/** Schedules every sync for the account, each at once and then every `everyMs`. Idempotent. */
export async function scheduleSyncs(
  queue: Queue<SyncJobData>,
  jobs: readonly SyncJobDefinition[],
  account_id: string,
): Promise<void> {
  for (const job of jobs) {
    await queue.upsertJobScheduler(
      syncSchedulerId(job.name, account_id),
      { every: job.everyMs },
      { name: job.name, data: { account_id }, ...(job.priority ? { opts: { priority: job.priority } } : {}) },
    );
  }
}

export function syncWorker(
  deps: SyncDeps & { connection: Redis; prefix: string },
  jobs: readonly SyncJobDefinition[],
): Worker<SyncJobData> {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  return new Worker<SyncJobData>(
    SYNC_QUEUE,
    async (job, token) => {
      const definition = byName.get(job.name);
      if (!definition) throw new UnrecoverableError(`no sync named ${job.name}`);
      try {
        return await withRetryPolicy(async () => {
          const result = await definition.run(deps, job.data.account_id);
          deps.logger.info({ sync: job.name, account_id: job.data.account_id, ...result }, 'sync done');
          return result;
        });
      } catch (err) {
        if (!(err instanceof ReportNotReady) || !token) throw err;
        // Reports take minutes at the marketplace, more than the attempts' backoff covers: the
        // job waits for them in the delayed set (no worker slot, no attempt spent). It stops
        // before the next run is due (a tenth of its interval earlier), which picks up the same
        // requests.
        const nextDue = job.data.next_due ?? job.timestamp + (job.delay ?? 0) + definition.everyMs;
        const waits = job.data.waits ?? 0;
        // A wait ending at the give-up point would start the run after it (a delayed job is taken
        // up a moment late): it ends a first wait earlier, or the job gives up now.
        const wait = Math.min(
          REPORT_WAITS_MS.longest,
          REPORT_WAITS_MS.first * 2 ** waits,
          nextDue - definition.everyMs / 10 - REPORT_WAITS_MS.first - Date.now(),
        );
        if (wait <= 0)
          throw new UnrecoverableError(
            `${err.message} after ${waits} waits; the next run, due at ${new Date(nextDue).toISOString()}, picks them up`,
          );
        deps.logger.debug(
          { sync: job.name, account_id: job.data.account_id, waits, wait },
          'sync waits for its reports',
        );
        return waitInDelayedSet(job, token, { ...job.data, next_due: nextDue, waits: waits + 1 }, wait);
      }
    },
    { connection: deps.connection, prefix: deps.prefix, concurrency: SYNC_CONCURRENCY },
  );
}
