import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { pruneInactiveRawData } from '../../commands/account/prune.js';
import { pruneBacktests } from '../../commands/backtest/prune.js';
import { pruneAutomationVersions } from '../../commands/automation/prune.js';
import { pruneAutomationRuns } from '../../commands/automation-run/prune.js';
import { pruneAutomationStore } from '../../commands/automation-store/prune.js';
import { pruneExpiredEvents, retentionCutoff } from '../../commands/event/prune.js';
import type { CommandContext } from '../../commands/shared/handler.js';
import { pruneSettledReceipts } from '../../commands/mutation/prune.js';
import { pruneWebhookDeliveries } from '../../commands/webhook/prune.js';
import { pruneCallRecords } from '../../projections/views/retention.js';

// Retention (spec 8), run hourly by the worker role: events one month from receipt (hourly metrics
// 35 days from their hour), settled receipts with their provider answers 30 days, webhook
// deliveries 30 days from the last attempt, tool-call records a month, automation runs and their
// actions a year from the decision, code versions a year from the edit, store values 7 days from
// the write, raw provider data of an inactive connection 30 days from the day it went inactive,
// backtests 30 days from their end.
// A run is idempotent: one that finds nothing expired does nothing.

export const EVENT_RETENTION_QUEUE = 'event-retention';
const EVERY_MS = 60 * 60_000;
export const EVENT_RETENTION_SCHEDULER = 'event-retention';

export function eventRetentionQueue(connection: Redis, prefix: string): Queue {
  return new Queue(EVENT_RETENTION_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts: 3,
      backoff: { type: 'exponential', delay: 60_000 },
      removeOnComplete: 10,
      removeOnFail: 50,
    },
  });
}

/** Prunes every hour (BullMQ runs an `every` schedule's first job at once). Idempotent. */
export async function scheduleEventRetention(queue: Queue): Promise<void> {
  await queue.upsertJobScheduler(EVENT_RETENTION_SCHEDULER, { every: EVERY_MS }, { name: 'prune' });
}

export function eventRetentionWorker(deps: {
  connection: Redis;
  prefix: string;
  db: Knex;
  ctx: CommandContext;
  logger: Logger;
  now?: () => Date;
}): Worker {
  return new Worker(
    EVENT_RETENTION_QUEUE,
    async () => {
      const now = (deps.now ?? (() => new Date()))();
      const pruned = {
        events: await pruneExpiredEvents(deps.db, deps.ctx.store, now),
        automation_runs: await pruneAutomationRuns(deps.db, deps.ctx.store, now),
        automation_versions: await pruneAutomationVersions(deps.db, deps.ctx.store, now),
        store_writes: await pruneAutomationStore(deps.db, deps.ctx.store, now),
        receipts: await pruneSettledReceipts(deps.db, deps.ctx.store, now),
        webhook_deliveries: await pruneWebhookDeliveries(deps.db, deps.ctx.store, now),
        call_records: await pruneCallRecords(deps.db, retentionCutoff(now), now),
        raw_data_scopes: await pruneInactiveRawData(deps.db, deps.ctx.store, now),
        backtests: await pruneBacktests(deps.db, deps.ctx.store, now),
      };
      if (Object.values(pruned).some((n) => n > 0)) deps.logger.info({ pruned }, 'expired records pruned');
      return pruned;
    },
    { connection: deps.connection, prefix: deps.prefix },
  );
}
