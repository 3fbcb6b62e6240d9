import { backtestDecider, backtestSlotDecider } from '../../domain/backtest/decide.js';
import type { BacktestRequestedData } from '../../domain/backtest/events.js';
import { aggregateStream, handleCommand, handleCommandWith, type CommandContext } from '../shared/handler.js';

// Starting a backtest: the user's slot taken (one at a time, the daily quota), the request
// recorded, then the job handed to the backtest workers. A job that could not be handed over frees
// the slot and ends the backtest failed, so the user is never left holding a slot nothing runs.

export async function startBacktest(
  ctx: CommandContext,
  request: BacktestRequestedData,
  enqueue: (backtest_id: string) => Promise<void>,
): Promise<void> {
  const { backtest_id, user_id, requested_at: at } = request;
  await handleCommandWith(
    backtestSlotDecider,
    user_id,
    async (slot) => ({
      type: 'Take' as const,
      backtest_id,
      at,
      runningEnded: slot.running !== null && (await hasEnded(ctx, slot.running)),
    }),
    ctx,
  );
  try {
    await handleCommand(backtestDecider, backtest_id, { type: 'Request', request }, ctx);
    await enqueue(backtest_id);
  } catch (err) {
    await endBacktest(ctx, user_id, backtest_id, {
      status: 'failed',
      result: null,
      error: `the backtest could not be started: ${(err as Error).message}`,
    }).catch(() => undefined);
    throw err;
  }
}

async function hasEnded(ctx: CommandContext, backtest_id: string): Promise<boolean> {
  const { state } = await aggregateStream(ctx.store, backtestDecider, backtest_id);
  return state.finishedAt !== null || state.request === null;
}

/** Ends a backtest (once) and frees its user's slot. */
export async function endBacktest(
  ctx: CommandContext,
  user_id: string,
  backtest_id: string,
  end: Omit<Extract<Parameters<typeof backtestDecider.decide>[0], { type: 'Finish' }>, 'type' | 'at'>,
  at = new Date(),
): Promise<void> {
  const { state } = await aggregateStream(ctx.store, backtestDecider, backtest_id);
  if (state.request)
    await handleCommand(backtestDecider, backtest_id, { type: 'Finish', ...end, at: at.toISOString() }, ctx);
  await handleCommand(backtestSlotDecider, user_id, { type: 'Free', backtest_id }, ctx);
}
