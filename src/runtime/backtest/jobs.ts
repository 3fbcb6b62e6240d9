import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { endBacktest } from '../../commands/backtest/start.js';
import { aggregateStream, handleCommand, type CommandContext } from '../../commands/shared/handler.js';
import { backtestDecider } from '../../domain/backtest/decide.js';
import type { Knex } from '../../infra/db.js';
import type { Logger } from '../../infra/logger.js';
import { loadAccount } from '../../projections/accounts/queries.js';
import { runBacktest } from './replay.js';
import type { Sandbox } from '../sandbox/index.js';

// The backtest workers (docs/decisions/120-backtests.md): a BullMQ queue of backtest ids; each job
// replays its backtest (runtime/backtest/replay.ts), records progress on the backtest's stream,
// looks for a cancellation there as it goes, and records the end (freeing the user's slot). A job
// run again after a crash starts the backtest over; one already ended is left as it is.

export const BACKTEST_QUEUE = 'backtests';

export interface BacktestJob {
  backtest_id: string;
}

export function backtestQueue(connection: Redis, prefix: string): Queue<BacktestJob> {
  return new Queue<BacktestJob>(BACKTEST_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts: 2,
      backoff: { type: 'fixed', delay: 5_000 },
      removeOnComplete: 100,
      removeOnFail: 100,
    },
  });
}

/** Hands a backtest to the workers (its id is the job's, so handing it twice queues it once). */
export async function enqueueBacktest(queue: Queue<BacktestJob>, backtest_id: string): Promise<void> {
  await queue.add('backtest', { backtest_id }, { jobId: backtest_id });
}

export interface BacktestWorkerDeps {
  connection: Redis;
  prefix: string;
  db: Knex;
  ctx: CommandContext;
  sandbox: Sandbox;
  logger: Logger;
  /** backtests run side by side (default 1: a backtest keeps the sandbox's runners busy) */
  concurrency?: number;
  /** how often a running backtest looks for a cancellation (default 1 s) */
  cancelCheckMs?: number;
}

export function backtestWorker(deps: BacktestWorkerDeps): Worker<BacktestJob> {
  return new Worker<BacktestJob>(BACKTEST_QUEUE, (job) => runBacktestJob(deps, job.data.backtest_id), {
    connection: deps.connection,
    prefix: deps.prefix,
    concurrency: deps.concurrency ?? 1,
  });
}

/** Runs one backtest to its end; `status` is what was recorded (null: it had ended already). */
export async function runBacktestJob(deps: BacktestWorkerDeps, backtest_id: string): Promise<string | null> {
  const ctx: CommandContext = { ...deps.ctx, metadata: { ...deps.ctx.metadata, correlation_id: backtest_id } };
  const { state } = await aggregateStream(ctx.store, backtestDecider, backtest_id);
  const request = state.request;
  if (!request || state.finishedAt) return null;
  const abort = new AbortController();
  const watch = setInterval(() => {
    void aggregateStream(ctx.store, backtestDecider, backtest_id)
      .then(({ state: now }) => now.cancelRequested && abort.abort())
      .catch((err: unknown) => deps.logger.warn({ err, backtest_id }, 'could not read the backtest'));
  }, deps.cancelCheckMs ?? 1_000);
  try {
    if (state.cancelRequested) abort.abort();
    const account = await loadAccount(deps.db, request.account_id);
    if (!account) throw new Error(`account ${request.account_id} is gone`);
    const result = await runBacktest(
      { db: deps.db, store: ctx.store, sandbox: deps.sandbox, logger: deps.logger },
      {
        automation: { id: request.automation_id, version: request.automation_version, code: request.code },
        account,
        streamType: request.stream_type,
        since: new Date(request.since),
        until: new Date(request.until),
      },
      {
        signal: abort.signal,
        progress: (done, total) =>
          handleCommand(
            backtestDecider,
            backtest_id,
            { type: 'Progress', done, total, at: new Date().toISOString() },
            ctx,
          )
            .then(() => undefined)
            .catch((err: unknown) => deps.logger.warn({ err, backtest_id }, 'could not record progress')),
      },
    );
    const status = result.cancelled ? 'cancelled' : 'completed';
    await endBacktest(ctx, request.user_id, backtest_id, { status, result, error: null });
    return status;
  } catch (err) {
    deps.logger.error({ err, backtest_id }, 'backtest failed');
    await endBacktest(ctx, request.user_id, backtest_id, {
      status: 'failed',
      result: null,
      error: (err as Error).message,
    });
    return 'failed';
  } finally {
    clearInterval(watch);
  }
}
