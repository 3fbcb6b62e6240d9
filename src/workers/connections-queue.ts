import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { streamName, type CommandContext } from '../commands/handler.js';
import { accountsProjection } from '../projections/accounts/projection.js';
import { hasApplied } from '../projections/checkpoints.js';
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

/** How long a connection job waits for the accounts read model to show what it recorded. */
const SHOWN_WITHIN_MS = 60_000;

/**
 * Resolves once the accounts projection has applied the account stream's last event. The data
 * syncs scheduled when a connection job completes read the account's marketplaces and profiles
 * from there: one that ran while only part of the connection was projected (selling connected,
 * marketplaces not yet) would find nothing to read and wait for its next run, hours later.
 */
export async function whenAccountShown(db: Knex, ctx: CommandContext, account_id: string, withinMs = SHOWN_WITHIN_MS): Promise<void> {
  const last = (await ctx.store.readStream(streamName('account', account_id))).at(-1);
  if (!last) return;
  const deadline = Date.now() + withinMs;
  while (!(await hasApplied(db, accountsProjection.name, last.position))) {
    if (Date.now() >= deadline) throw new Error(`the accounts read model has not shown account ${account_id}'s connections after ${withinMs / 1000} s (is the projector running?)`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function connectionsWorker(
  deps: { connection: Redis; prefix: string; db: Knex; ctx: CommandContext; lwa: LwaClient; endpoints: MarketplaceEndpoints; credentials: CredentialsLookup; logger: Logger },
): Worker<ConnectionSyncJob> {
  return new Worker<ConnectionSyncJob>(
    CONNECTIONS_QUEUE,
    async (job) => {
      const name = job.data.credentials ?? SELLER_CREDENTIALS;
      const credentials = deps.credentials(name);
      if (!credentials) throw new UnrecoverableError(`no credential set named ${name} is configured`);
      return withRetryPolicy(async () => {
        const result = await syncConnections(deps, { ...job.data, ...credentials, credentials: name });
        await whenAccountShown(deps.db, deps.ctx, job.data.account_id);
        return result;
      });
    },
    { connection: deps.connection, prefix: deps.prefix, concurrency: 2 },
  );
}
