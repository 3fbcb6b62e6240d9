import type { Queue } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { connectedAccounts } from '../projections/accounts/queries.js';
import { connectionSchedulerId, scheduleConnectionSync, type ConnectionSyncJob } from './connections-queue.js';
import { SELLER_CREDENTIALS } from './credentials.js';
import { EVENT_RETENTION_SCHEDULER, scheduleEventRetention } from './events/retention-queue.js';
import type { SyncJobDefinition } from './sync/job.js';
import { scheduleSyncs, syncSchedulerId, type SyncJobData } from './sync/queue.js';

// Redis is not a record: BullMQ's job schedulers (every account's connection and data syncs, the
// events' retention) live only there, so a flush or a failover to an empty replica would stop
// them until a restart. The keeper re-establishes, at start-up and every `everyMs`, every
// scheduler the read models say should exist and Redis lacks; one that exists is left alone
// (upserting it again would run it at once). A flush so costs at most one interval. Pending
// receipts and subscriptions have sweeps of their own (dispatch/queue.ts, streams/queue.ts).
// An account whose connections are all inactive has no syncs: the keeper removes its
// schedulers (within one interval of the deactivation) and adds them back once a reconnection
// made one active again.

export interface ScheduleQueues {
  connections: Queue<ConnectionSyncJob>;
  data: Queue<SyncJobData>;
  retention: Queue;
}

export interface RunningScheduleKeeper {
  /** Re-establishes what is missing now and removes what inactive accounts had; how many schedulers it changed. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

const schedulerKeys = async (queue: Queue): Promise<Set<string>> =>
  new Set((await queue.getJobSchedulers(0, -1)).map((s) => s.key));

/** Adds the schedulers the read models call for and Redis lacks, and removes those of accounts
 * without an active connection; how many it changed. */
export async function restoreSchedules(
  db: Knex,
  queues: ScheduleQueues,
  jobs: readonly SyncJobDefinition[],
  hasCredentials: (name: string) => boolean,
): Promise<number> {
  let changed = 0;
  if (!(await schedulerKeys(queues.retention)).has(EVENT_RETENTION_SCHEDULER)) {
    await scheduleEventRetention(queues.retention);
    changed++;
  }
  const [connections, data] = await Promise.all([schedulerKeys(queues.connections), schedulerKeys(queues.data)]);
  for (const { account_id, user_id, credentials, active } of await connectedAccounts(db)) {
    const dataIds = jobs.map((j) => syncSchedulerId(j.name, account_id));
    if (!active) {
      const connection = connectionSchedulerId(account_id);
      if (connections.has(connection)) changed += Number(await queues.connections.removeJobScheduler(connection));
      for (const id of dataIds) if (data.has(id)) changed += Number(await queues.data.removeJobScheduler(id));
      continue;
    }
    const set = credentials ?? SELLER_CREDENTIALS;
    // an account whose credential set is no longer configured is left to the operator
    if (!hasCredentials(set)) continue;
    if (!connections.has(connectionSchedulerId(account_id))) {
      await scheduleConnectionSync(queues.connections, { user_id, account_id, credentials: set });
      changed++;
    }
    const missing = jobs.filter((_, i) => !data.has(dataIds[i]!));
    await scheduleSyncs(queues.data, missing, account_id);
    changed += missing.length;
  }
  return changed;
}

export function keepSchedules(o: {
  db: Knex;
  queues: ScheduleQueues;
  jobs: readonly SyncJobDefinition[];
  hasCredentials: (name: string) => boolean;
  everyMs: number;
  logger: Logger;
}): RunningScheduleKeeper {
  const sweep = async () => {
    const changed = await restoreSchedules(o.db, o.queues, o.jobs, o.hasCredentials);
    if (changed > 0) o.logger.info({ changed }, 'job schedulers re-established or removed');
    return changed;
  };
  // one sweep at a time: a tick while one runs is skipped
  let running: Promise<unknown> | null = null;
  const tick = () => {
    running ??= sweep()
      .catch((err: unknown) => o.logger.warn({ err }, 'restoring job schedulers failed'))
      .finally(() => (running = null));
  };
  tick();
  const timer = setInterval(tick, o.everyMs);
  return {
    sweep,
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
