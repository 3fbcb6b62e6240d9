import { z } from 'zod';
import { backtestResult } from '../../domain/backtest/result.js';
import { DomainError } from '../../domain/shared/errors.js';
import { codeArgument, oneOfAutomationOrCode, streamTypeArgument } from '../automations.js';
import { readBacktest, requestBacktest } from '../backtests.js';
import { defineTool } from '../tool.js';

// backtest_automation (an extension beyond the spec; docs/decisions/120-backtests.md): starts a
// backtest of a saved automation (a version of it) or inline code over the recorded messages of its
// type in a window, as a job the backtest workers run; the same tool with `backtest_id` reads its
// progress and result, or cancels it. It records only the backtest's own streams: nothing reaches
// the marketplace, so mcp:read is enough (docs/decisions/122-backtest-scope.md).

export const backtestAutomationTool = defineTool({
  name: 'backtest_automation',
  description:
    "Extension beyond the spec. Backtests an automation over the recorded events of its type: pass automation_id (optionally version) or code with stream_type, and since/until (ISO times; default the last 30 days, within the events' one-month retention). Each event is replayed in event-time order through the same sandbox, limits and context contract as a live run, with the context as the log had it at the event's time (listing facts, notifications, deals, the linked advertising entities with their metrics, block flags and switches) and the automation's own would-be changes carried forward (a price it set is the next context's price; its store is the backtest's own). Nothing is admitted, sent, posted or stored outside the backtest's own record. Starting answers status queued and a backtest_id; call again with backtest_id to read progress and, once completed, the result: totals, a per-day series, would-be changes by target and action (with the price the marketplace showed then), blocked requests, validation failures, execution errors, missing_field_reads, webhook posts, each run (the first 1,000), and what live runs did on the same events. cancel: true with backtest_id stops it. One backtest at a time per user, 20 per UTC day.",
  annotations: {
    title: 'Backtest automation',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  input: {
    automation_id: z.string().min(1).optional().describe('a saved automation to backtest'),
    version: z.number().int().min(1).optional().describe("the automation's code version (default its current one)"),
    code: codeArgument.optional(),
    stream_type: streamTypeArgument.optional().describe('the event type inline code handles (required with code)'),
    since: z.string().optional().describe('window start, ISO time (default 30 days ago)'),
    until: z.string().optional().describe('window end, exclusive, ISO time (default now)'),
    backtest_id: z.string().min(1).optional().describe('read (or with cancel, cancel) a backtest started earlier'),
    cancel: z.boolean().optional().describe('with backtest_id: stop it; what ran is kept'),
  },
  output: z.object({
    backtest_id: z.string(),
    status: z.enum(['queued', 'running', 'completed', 'cancelled', 'failed']),
    automation_id: z.string().nullable(),
    automation_version: z.number().int(),
    stream_type: z.string(),
    account_id: z.string(),
    since: z.string(),
    until: z.string(),
    requested_at: z.string(),
    progress: z
      .object({ done: z.number().int(), total: z.number().int() })
      .nullable()
      .describe('events replayed of those in the window; null until the worker took it'),
    cancel_requested: z.boolean(),
    finished_at: z.string().nullable(),
    error: z.string().nullable().describe('failed: why'),
    result: backtestResult.nullable().describe('completed or cancelled: what it found'),
  }),
  async handler(input, ctx) {
    if (input.backtest_id !== undefined) return readBacktest(ctx, input.backtest_id, input.cancel === true);
    if (input.cancel !== undefined)
      throw new DomainError('invalid', 'cancel: pass it with backtest_id (the backtest to stop)', {
        argument: 'cancel',
      });
    oneOfAutomationOrCode(input);
    if (input.version !== undefined && input.automation_id === undefined)
      throw new DomainError('invalid', 'version: pass it with automation_id (inline code has no versions)', {
        argument: 'version',
      });
    return requestBacktest(ctx, input);
  },
});
