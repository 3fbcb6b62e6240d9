import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { streamName, type CommandContext } from '../commands/shared/handler.js';
import { accountsProjection } from '../projections/accounts/projection.js';
import { hasApplied } from '../projections/checkpoints.js';
import { pollUntil } from '../infra/poll.js';
import type { LwaClient } from '../marketplace/clients/index.js';
import { retriedJobs, waitInDelayedSet, withRetryPolicy } from './retry-policy.js';
import { syncConnections, type ConnectionSyncTarget, type MarketplaceEndpoints } from './connections-sync.js';
import { SELLER_CREDENTIALS, type CredentialsLookup } from './credentials.js';

export const CONNECTIONS_QUEUE = 'connections-sync';

/** Job data names the account and the configured credential set to connect it with (no
 * secrets in Redis); the worker looks the set up. Jobs without one connect the seller's.
 * `reconnect`: the operator's reconnection of inactive connections (a one-off job). */
export type ConnectionSyncJob = Pick<
  ConnectionSyncTarget,
  'user_id' | 'register_user_as' | 'account_id' | 'reconnect'
> & {
  credentials?: string;
  /** set while the job waits for the read model: what it recorded, whether the account has an
   * active connection, and since when it waits (ms) */
  recorded?: number;
  active?: boolean;
  shown_wait_since?: number;
};

/** What a connection job completes with: its data syncs are scheduled when `active`. */
export interface ConnectionSyncResult {
  recorded: number;
  active: boolean;
}

export function connectionsQueue(connection: Redis, prefix: string): Queue<ConnectionSyncJob> {
  return new Queue<ConnectionSyncJob>(CONNECTIONS_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: retriedJobs({ attempts: 5, firstRetryMs: 2000, keepCompleted: 100, keepFailed: 500 }),
  });
}

/** The job scheduler of an account's connection sync. */
export const connectionSchedulerId = (account_id: string) => `connections-${account_id}`;

/** The operator's reconnection of an account's inactive connections: one job at once, which
 * makes them active again if the marketplace accepts their authorization; the schedule keeper
 * then re-establishes the account's repeating syncs. */
export async function reconnectAccount(queue: Queue<ConnectionSyncJob>, job: ConnectionSyncJob): Promise<void> {
  await queue.add('sync', { ...job, reconnect: true }, { jobId: `reconnect-${job.account_id}-${Date.now()}` });
}

/** Re-syncs an account's connections every 15 minutes, the first time at once. Idempotent per account. */
export async function scheduleConnectionSync(queue: Queue<ConnectionSyncJob>, job: ConnectionSyncJob): Promise<void> {
  await queue.upsertJobScheduler(
    connectionSchedulerId(job.account_id),
    { every: 15 * 60_000 },
    { name: 'sync', data: job },
  );
}

/** A connection job's wait for the accounts read model: polled in the job, then rechecked from
 * BullMQ's delayed set (no worker slot held, no attempt spent), given up after `givenUpAfterMs`. */
export const ACCOUNT_SHOWN_WAIT = { inJobMs: 2_000, recheckMs: 1_000, givenUpAfterMs: 5 * 60_000 };

/**
 * Whether the accounts projection has applied the account stream's last event, polled for up to
 * `withinMs`. The data syncs scheduled when a connection job completes read the account's
 * marketplaces and profiles from there: one that ran while only part of the connection was
 * projected (selling connected, marketplaces not yet) found nothing to read and waited for its
 * next run, hours later.
 */
export async function accountShown(
  db: Knex,
  ctx: CommandContext,
  account_id: string,
  withinMs: number,
): Promise<boolean> {
  const last = (await ctx.store.readStream(streamName('account', account_id))).at(-1);
  if (!last) return true;
  return pollUntil(() => hasApplied(db, accountsProjection.name, last.position), withinMs, 100);
}

export function connectionsWorker(deps: {
  connection: Redis;
  prefix: string;
  db: Knex;
  ctx: CommandContext;
  lwa: LwaClient;
  endpoints: MarketplaceEndpoints;
  credentials: CredentialsLookup;
  logger: Logger;
  shownWait?: typeof ACCOUNT_SHOWN_WAIT;
}): Worker<ConnectionSyncJob, ConnectionSyncResult> {
  const wait = deps.shownWait ?? ACCOUNT_SHOWN_WAIT;
  return new Worker<ConnectionSyncJob, ConnectionSyncResult>(
    CONNECTIONS_QUEUE,
    async (job, token) => {
      const name = job.data.credentials ?? SELLER_CREDENTIALS;
      const credentials = await deps.credentials(name);
      if (!credentials) throw new UnrecoverableError(`no credential set named ${name} is configured`);
      // a job back from waiting for the read model has read the marketplace already
      const { recorded, active }: ConnectionSyncResult =
        job.data.recorded === undefined
          ? await withRetryPolicy(() => syncConnections(deps, { ...job.data, ...credentials, credentials: name }))
          : { recorded: job.data.recorded, active: job.data.active ?? true };
      if (await accountShown(deps.db, deps.ctx, job.data.account_id, wait.inJobMs)) return { recorded, active };
      const since = job.data.shown_wait_since ?? Date.now();
      if (Date.now() - since >= wait.givenUpAfterMs) {
        throw new UnrecoverableError(
          `the accounts read model has not shown account ${job.data.account_id}'s connections after ${wait.givenUpAfterMs / 1000} s (is the projector running?); the next connection sync tries again`,
        );
      }
      return waitInDelayedSet(job, token, { ...job.data, recorded, active, shown_wait_since: since }, wait.recheckMs);
    },
    { connection: deps.connection, prefix: deps.prefix, concurrency: 2 },
  );
}
