import { Queue, Worker, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { waitInDelayedSet } from '../retry-policy.js';
import type { SyncDeps, SyncJobDefinition } from './job.js';
import { ReportNotReady } from './reports.js';

export const SYNC_QUEUE = 'data-sync';

export interface SyncJobData {
  account_id: string;
  /** while its reports aren't done, or after a failure: when its next run is due (ms) */
  next_due?: number;
  /** how often it has waited for its reports */
  waits?: number;
  /** how often it has failed in a row */
  failures?: number;
}

/** Sync jobs a worker runs at once: a sync mostly waits on the marketplace and on the log's
 * commits, so a first sync's dozen jobs shouldn't queue two at a time behind the longest. */
const SYNC_CONCURRENCY = 4;

/** Waits doubling from the first, up to the longest. */
export interface Backoff {
  firstMs: number;
  longestMs: number;
}

/** The waits of a job whose reports aren't done. */
export const REPORT_WAITS: Backoff = { firstMs: 1_000, longestMs: 60_000 };

/** How a sync worker retries and recovers its jobs (SYNC_RETRY_FIRST_MS, …; docs/decisions/087-syncs-that-resume.md). */
export interface SyncRecovery {
  /** the retries of a failed run */
  retry: Backoff;
  /** how long a job's lock outlives its worker: a job of a process that died runs again within
   * about this much, plus `stalledCheckMs` */
  lockMs: number;
  stalledCheckMs: number;
}

/** The defaults of config.ts, for workers that tests start. */
export const SYNC_RECOVERY: SyncRecovery = {
  retry: { firstMs: 10_000, longestMs: 300_000 },
  lockMs: 15_000,
  stalledCheckMs: 5_000,
};

/** A job that outlived this many processes is still run again: syncs are idempotent, and a
 * restart must never leave a sync to its next interval. */
const MAX_STALLS = 20;

export function syncQueue(connection: Redis, prefix: string): Queue<SyncJobData> {
  // no attempts: the worker retries a failed run itself (below), as the same job
  return new Queue<SyncJobData>(SYNC_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: 200, removeOnFail: 500 },
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
  deps: SyncDeps & { connection: Redis; prefix: string; recovery?: SyncRecovery },
  jobs: readonly SyncJobDefinition[],
): Worker<SyncJobData> {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  const recovery = deps.recovery ?? SYNC_RECOVERY;
  return new Worker<SyncJobData>(
    SYNC_QUEUE,
    async (job, token) => {
      const definition = byName.get(job.name);
      if (!definition) throw new UnrecoverableError(`no sync named ${job.name}`);
      const log = { sync: job.name, account_id: job.data.account_id };
      try {
        const result = await definition.run(deps, job.data.account_id);
        deps.logger.info({ ...log, ...result }, 'sync done');
        return result;
      } catch (err) {
        if (!token) throw err;
        // Reports take minutes at the marketplace; a failure may last as long (an outage, a
        // restarted marketplace): the job waits in the delayed set (no worker slot held) and runs
        // again, the same job, so retries never pile up beside it. It stops before the next run
        // is due (a tenth of its interval earlier), which picks up the same requests.
        const nextDue = job.data.next_due ?? job.timestamp + (job.delay ?? 0) + definition.everyMs;
        const pending = err instanceof ReportNotReady;
        const count = (pending ? job.data.waits : job.data.failures) ?? 0;
        const backoff = pending ? REPORT_WAITS : recovery.retry;
        // A wait ending at the give-up point would start the run after it (a delayed job is taken
        // up a moment late): it ends a first wait earlier, or the job gives up now.
        const wait = Math.min(
          backoff.longestMs,
          backoff.firstMs * 2 ** count,
          nextDue - definition.everyMs / 10 - backoff.firstMs - Date.now(),
        );
        const message = err instanceof Error ? err.message : String(err);
        if (wait <= 0)
          throw new UnrecoverableError(
            `${message} after ${count} ${pending ? 'waits' : 'retries'}; the next run, due at ${new Date(nextDue).toISOString()}, ${pending ? 'picks them up' : 'tries again'}`,
          );
        if (pending) deps.logger.debug({ ...log, waits: count, wait }, 'sync waits for its reports');
        else deps.logger.warn({ ...log, err: message, failures: count + 1, wait }, 'sync failed; retrying');
        const data = pending ? { waits: count + 1 } : { failures: count + 1 };
        return waitInDelayedSet(job, token, { ...job.data, ...data, next_due: nextDue }, wait);
      }
    },
    {
      connection: deps.connection,
      prefix: deps.prefix,
      concurrency: SYNC_CONCURRENCY,
      lockDuration: recovery.lockMs,
      stalledInterval: recovery.stalledCheckMs,
      maxStalledCount: MAX_STALLS,
    },
  );
}
