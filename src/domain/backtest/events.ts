import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';
import { backtestResult } from './result.js';

// A backtest's own record: one stream per backtest, `backtest-<id>` (requested, its progress, a
// cancellation asked for, its end with what it found), and one per user, `backtest-slot-<user id>`,
// that holds the one-at-a-time rule and the daily quota.

export const BacktestRequested = z.object({
  backtest_id: z.uuid(),
  user_id: z.string().min(1),
  account_id: z.uuid(),
  /** null: inline code */
  automation_id: z.uuid().nullable(),
  automation_version: z.number().int().min(1),
  code: z.string(),
  stream_type: z.string().min(1),
  since: instant,
  until: instant,
  requested_at: instant,
});
export const BacktestProgressed = z.object({
  done: z.number().int().min(0),
  total: z.number().int().min(0),
  at: instant,
});
export const BacktestCancelRequested = z.object({ at: instant });
export const BacktestFinished = z.object({
  status: z.enum(['completed', 'cancelled', 'failed']),
  result: backtestResult.nullable(),
  /** failed: why */
  error: z.string().nullable(),
  at: instant,
});
export type BacktestRequestedData = z.infer<typeof BacktestRequested>;

export const backtestEventSchemas = {
  BacktestRequested,
  BacktestProgressed,
  BacktestCancelRequested,
  BacktestFinished,
} as const;
export type BacktestEvent = EventUnion<typeof backtestEventSchemas>;

export const BacktestSlotTaken = z.object({ backtest_id: z.uuid(), day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) });
export const BacktestSlotFreed = z.object({ backtest_id: z.uuid() });
export const backtestSlotEventSchemas = { BacktestSlotTaken, BacktestSlotFreed } as const;
export type BacktestSlotEvent = EventUnion<typeof backtestSlotEventSchemas>;
