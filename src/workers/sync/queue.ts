import { Queue, Worker, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { withRetryPolicy } from '../retry-policy.js';
import type { SyncDeps, SyncJobDefinition } from './job.js';

export const SYNC_QUEUE = 'data-sync';

export interface SyncJobData {
  account_id: string;
}

export function syncQueue(connection: Redis, prefix: string): Queue<SyncJobData> {
  return new Queue<SyncJobData>(SYNC_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: { attempts: 8, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: 200, removeOnFail: 500 },
  });
}

/** Schedules every sync for the account, each at once and then every `everyMs`. Idempotent. */
export async function scheduleSyncs(queue: Queue<SyncJobData>, jobs: readonly SyncJobDefinition[], account_id: string): Promise<void> {
  for (const job of jobs) {
    await queue.upsertJobScheduler(`${job.name}-${account_id}`, { every: job.everyMs }, { name: job.name, data: { account_id } });
  }
}

export function syncWorker(deps: SyncDeps & { connection: Redis; prefix: string }, jobs: readonly SyncJobDefinition[]): Worker<SyncJobData> {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  return new Worker<SyncJobData>(
    SYNC_QUEUE,
    async (job) => {
      const definition = byName.get(job.name);
      if (!definition) throw new UnrecoverableError(`no sync named ${job.name}`);
      return withRetryPolicy(async () => {
        const result = await definition.run(deps, job.data.account_id);
        deps.logger.info({ sync: job.name, account_id: job.data.account_id, ...result }, 'sync done');
        return result;
      });
    },
    { connection: deps.connection, prefix: deps.prefix, concurrency: 2 },
  );
}
