import { z } from 'zod';

// What a backtest found (runtime/backtest/replay.ts builds it; the backtest's record keeps it).

const counts = {
  events_replayed: z.number().int().describe('recorded messages of the type replayed'),
  runs: z.number().int().describe('handler runs (one per listing a message reached)'),
  changes: z.number().int().describe('requests admission would have queued'),
  blocked: z.number().int().describe('requests that would have been withheld (listing blocked, Automation switch off)'),
  validation_failures: z
    .number()
    .int()
    .describe('invalid output: requests admission would refuse, or an outbox over a run limit'),
  execution_errors: z.number().int().describe('runs that threw, timed out or ran out of memory'),
  missing_field_reads: z.number().int().describe('event keys read that the payload lacked'),
  webhook_posts: z.number().int().describe('webhook posts it would have made'),
  live_runs: z.number().int().describe("live runs of the account's automations of the type on the same messages"),
  live_changes: z.number().int().describe('requests those live runs had admitted (applied)'),
};
export const backtestTotals = z.object(counts);
export type BacktestTotals = z.infer<typeof backtestTotals>;

const target = z.object({ type: z.string(), id: z.string().nullable() }).nullable();

export const backtestResult = z.object({
  events_in_window: z.number().int().describe('recorded messages of the type in the window'),
  cancelled: z.boolean().describe('stopped before every message was replayed'),
  elapsed_ms: z.number().int(),
  totals: backtestTotals,
  series: z
    .array(z.object({ day: z.string().describe('UTC day of the messages'), ...counts }))
    .describe('the totals per day'),
  changes: z
    .array(
      z.object({
        key: z.string(),
        target,
        action: z.string().nullable(),
        sku: z.string().nullable(),
        marketplace_id: z.string().nullable(),
        count: z.number().int(),
        changes: z.array(
          z.object({
            at: z.string().describe("the message's event time"),
            event_id: z.string(),
            value: z.number().nullable().describe('the amount it would set, major units'),
            marketplace_value: z
              .number()
              .nullable()
              .describe(
                "what the log showed then of the amount (major units): the run's own listing's price, an advertising entity's budget or bid; null otherwise",
              ),
          }),
        ),
      }),
    )
    .describe('would-be changes by target and action'),
  blocked: z.array(
    z.object({
      at: z.string(),
      event_id: z.string(),
      target,
      action: z.string().nullable(),
      reason: z.string().nullable(),
    }),
  ),
  validation_failures: z.array(
    z.object({
      at: z.string(),
      event_id: z.string(),
      target,
      action: z.string().nullable(),
      error_message: z.string().nullable(),
    }),
  ),
  execution_errors: z.array(
    z.object({
      at: z.string(),
      event_id: z.string(),
      listing_id: z.string().nullable(),
      code: z.string(),
      message: z.string(),
    }),
  ),
  missing_field_reads: z.array(z.object({ path: z.string(), available: z.array(z.string()), count: z.number().int() })),
  webhook_posts: z.array(z.object({ at: z.string(), event_id: z.string(), webhook: z.string(), payload: z.unknown() })),
  runs: z
    .array(
      z.object({
        event_id: z.string(),
        occurred_at: z.string(),
        listing_id: z.string().nullable(),
        outcome: z.enum(['ok', 'error']),
        changes: z.array(z.object({ target, action: z.string().nullable(), value: z.number().nullable() })),
        blocked: z.number().int(),
        validation_failures: z.number().int(),
        error: z.object({ code: z.string(), message: z.string() }).nullable(),
        logs: z.array(z.object({ level: z.string(), message: z.string() })),
        missing_field_reads: z.number().int(),
        webhook_posts: z.number().int(),
        live: z
          .array(
            z.object({
              automation_id: z.string(),
              automation_version: z.number().int(),
              error_message: z.string().nullable(),
              actions: z.array(
                z.object({
                  status: z.string().nullable(),
                  action: z.string().nullable(),
                  target_type: z.string().nullable(),
                  target_id: z.string().nullable(),
                  value: z.number().nullable(),
                  error_message: z.string().nullable(),
                }),
              ),
            }),
          )
          .describe('what live runs did on the same message and listing'),
      }),
    )
    .describe('each run, in event-time order (the first 1,000)'),
});
export type BacktestResult = z.infer<typeof backtestResult>;
