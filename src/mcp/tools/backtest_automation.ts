import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { startBacktest } from '../../commands/backtest/start.js';
import { aggregateStream, handleCommand } from '../../commands/shared/handler.js';
import { retentionCutoff } from '../../commands/event/prune.js';
import { backtestDecider, type BacktestState } from '../../domain/backtest/decide.js';
import { BACKTEST_LIMITS } from '../../domain/backtest/limits.js';
import { backtestResult } from '../../domain/backtest/result.js';
import { DomainError } from '../../domain/shared/errors.js';
import { UUID_PATTERN } from '../../domain/shared/ids.js';
import { versionCode } from '../../projections/automations/queries.js';
import { accountForStreamType } from '../accounts.js';
import { codeArgument, runnable, runTarget, streamTypeArgument } from '../automations.js';
import { defineTool, type ToolContext } from '../tool.js';

// backtest_automation (an extension beyond the spec; docs/decisions/120-backtests.md): starts a
// backtest of a saved automation (a version of it) or inline code over the recorded messages of its
// type in a window, as a job the backtest workers run; the same tool with `backtest_id` reads its
// progress and result, or cancels it. It records only the backtest's own streams: nothing reaches
// the marketplace, so mcp:read is enough (docs/decisions/122-backtest-scope.md).

const DAY_MS = 86_400_000;

export const backtestAutomationTool = defineTool({
  name: 'backtest_automation',
  description:
    'Extension beyond the spec. Backtests an automation over the recorded events of its type: pass automation_id (optionally version) or code with stream_type, and since/until (ISO times; default the last 30 days, within the events\' one-month retention). Each event is replayed in event-time order through the same sandbox, limits and context contract as a live run, with the context as the log had it at the event\'s time (listing facts, notifications, block flags and switches) and the automation\'s own would-be changes carried forward (a price it set is the next context\'s price; its store is the backtest\'s own). Nothing is admitted, sent, posted or stored outside the backtest\'s own record. Starting answers status queued and a backtest_id; call again with backtest_id to read progress and, once completed, the result: totals, a per-day series, would-be changes by target and action (with the price the marketplace showed then), blocked requests, validation failures, execution errors, missing_field_reads, webhook posts, each run (the first 1,000), and what live runs did on the same events. cancel: true with backtest_id stops it. One backtest at a time per user, 20 per UTC day.',
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
    if (input.backtest_id !== undefined) return readOrCancel(ctx, input.backtest_id, input.cancel === true);
    if (input.cancel !== undefined)
      throw new DomainError('invalid', 'cancel: pass it with backtest_id (the backtest to stop)', { argument: 'cancel' });
    if (input.automation_id !== undefined && input.code !== undefined)
      throw new DomainError('ambiguous_target', 'pass automation_id or code, not both', {
        arguments: ['automation_id', 'code'],
      });
    if (input.automation_id === undefined && input.code === undefined)
      throw new DomainError(
        'automation_or_code_required',
        'pass automation_id (a saved automation) or code with stream_type (inline code)',
      );
    if (input.version !== undefined && input.automation_id === undefined)
      throw new DomainError('invalid', 'version: pass it with automation_id (inline code has no versions)', {
        argument: 'version',
      });
    if (!ctx.store || !ctx.backtests)
      throw new DomainError('unavailable', 'this server runs no backtests (no backtest workers are configured); retry later');
    const target = await runTarget(ctx, input);
    if (target.type.scope !== 'Listing')
      throw new DomainError(
        'invalid',
        `stream_type: ${target.type.code} is of the ${target.type.scope} scope; a backtest replays Listing-scope event types only`,
        { argument: 'stream_type' },
      );
    const account = target.account
      ? accountForStreamType([target.account], target.account.id, target.type)
      : runnable(target.accounts, target.type)[0]!;
    let code = target.automation.code;
    let version = target.automation.version;
    if (input.version !== undefined && input.version !== version) {
      const kept = await versionCode(ctx.db, target.automation.id!, input.version);
      if (kept === null)
        throw new DomainError(
          'invalid',
          `version: automation ${target.automation.id} has no version ${input.version} (its current one is ${version}; get_automation lists those kept)`,
          { argument: 'version' },
        );
      code = kept;
      version = input.version;
    }
    const now = ctx.now();
    const { since, until } = windowOf(input, now);
    const backtest_id = randomUUID();
    await startBacktest(
      { store: ctx.store, metadata: { actor: { kind: 'user', id: ctx.userId }, account_id: account.id } },
      {
        backtest_id,
        user_id: ctx.userId,
        account_id: account.id,
        automation_id: target.automation.id,
        automation_version: version,
        code,
        stream_type: target.type.code,
        since: since.toISOString(),
        until: until.toISOString(),
        requested_at: now.toISOString(),
      },
      (id) => ctx.backtests!.enqueue(id),
    );
    return readOrCancel(ctx, backtest_id, false);
  },
});

/** The window: given or the last 30 days, within the events' retention, at most a month long. */
function windowOf(input: { since?: string | undefined; until?: string | undefined }, now: Date) {
  const time = (name: 'since' | 'until', text: string) => {
    const at = Date.parse(text);
    if (Number.isNaN(at))
      throw new DomainError('invalid_window', `${name}: '${text}' is not an ISO time`, { argument: name });
    return new Date(at);
  };
  const until = input.until !== undefined ? time('until', input.until) : now;
  const since =
    input.since !== undefined ? time('since', input.since) : new Date(until.getTime() - BACKTEST_LIMITS.defaultDays * DAY_MS);
  const cutoff = retentionCutoff(now);
  if (until.getTime() <= since.getTime())
    throw new DomainError('invalid_window', `since ${since.toISOString()} is not before until ${until.toISOString()}`, {
      argument: 'since',
    });
  if (until.getTime() - since.getTime() > BACKTEST_LIMITS.maxDays * DAY_MS)
    throw new DomainError('invalid_window', `the window is longer than ${BACKTEST_LIMITS.maxDays} days`, {
      argument: 'since',
    });
  // the default window starts at the retention's edge at the latest
  if (input.since === undefined && since < cutoff) return { since: cutoff, until };
  if (since < cutoff)
    throw new DomainError(
      'invalid_window',
      `since: ${since.toISOString()} is before the events' retention (${cutoff.toISOString()}): events are kept one month`,
      { argument: 'since' },
    );
  return { since, until };
}

async function readOrCancel(ctx: ToolContext, backtest_id: string, cancel: boolean) {
  const id = backtest_id.trim().toLowerCase();
  const notFound = () =>
    new DomainError('not_found', `backtest_id: no backtest '${backtest_id}' of yours`, { argument: 'backtest_id' });
  if (!UUID_PATTERN.test(id) || !ctx.store) throw notFound();
  let { state } = await aggregateStream(ctx.store, backtestDecider, id);
  if (!state.request || state.request.user_id !== ctx.userId) throw notFound();
  if (cancel) {
    await handleCommand(
      backtestDecider,
      id,
      { type: 'Cancel', at: ctx.now().toISOString() },
      { store: ctx.store, metadata: { actor: { kind: 'user', id: ctx.userId }, account_id: state.request.account_id } },
    );
    state = (await aggregateStream(ctx.store, backtestDecider, id)).state;
  }
  return view(id, state);
}

function view(backtest_id: string, state: BacktestState) {
  const r = state.request!;
  return {
    backtest_id,
    status: state.status!,
    automation_id: r.automation_id,
    automation_version: r.automation_version,
    stream_type: r.stream_type,
    account_id: r.account_id,
    since: r.since,
    until: r.until,
    requested_at: r.requested_at,
    progress: state.progress,
    cancel_requested: state.cancelRequested,
    finished_at: state.finishedAt,
    error: state.error,
    result: state.result,
  };
}
