import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CommandContext } from '../commands/handler.js';
import type { LwaClient } from '../marketplace/clients/index.js';
import { withRetryPolicy } from './retry-policy.js';
import { syncConnections, type ConnectionSyncTarget, type MarketplaceEndpoints } from './connections-sync.js';
import { SELLER_CREDENTIALS, type CredentialsLookup } from './credentials.js';

export const CONNECTIONS_QUEUE = 'connections-sync';

/** Job data names the account and the configured credential set to connect it with (no
 * secrets in Redis); the worker looks the set up. Jobs without one connect the seller's. */
export type ConnectionSyncJob = Pick<ConnectionSyncTarget, 'user_id' | 'register_user_as' | 'account_id'> & { credentials?: string };

export function connectionsQueue(connection: Redis, prefix: string): Queue<ConnectionSyncJob> {
  return new Queue<ConnectionSyncJob>(CONNECTIONS_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: 100, removeOnFail: 500 },
  });
}

/** Re-syncs an account's connections every 15 minutes, the first time at once. Idempotent per account. */
export async function scheduleConnectionSync(queue: Queue<ConnectionSyncJob>, job: ConnectionSyncJob): Promise<void> {
  await queue.upsertJobScheduler(`connections-${job.account_id}`, { every: 15 * 60_000 }, { name: 'sync', data: job });
}

export function connectionsWorker(
  deps: { connection: Redis; prefix: string; ctx: CommandContext; lwa: LwaClient; endpoints: MarketplaceEndpoints; credentials: CredentialsLookup; logger: Logger },
): Worker<ConnectionSyncJob> {
  return new Worker<ConnectionSyncJob>(
    CONNECTIONS_QUEUE,
    async (job) => {
      const name = job.data.credentials ?? SELLER_CREDENTIALS;
      const credentials = deps.credentials(name);
      if (!credentials) throw new UnrecoverableError(`no credential set named ${name} is configured`);
      return withRetryPolicy(() => syncConnections(deps, { ...job.data, ...credentials, credentials: name }));
    },
    { connection: deps.connection, prefix: deps.prefix, concurrency: 2 },
  );
}
