import { randomUUID } from 'node:crypto';
import { startBacktest } from '../commands/backtest/start.js';
import { retentionCutoff } from '../commands/event/prune.js';
import { aggregateStream, handleCommand } from '../commands/shared/handler.js';
import { backtestDecider, type BacktestState } from '../domain/backtest/decide.js';
import { BACKTEST_LIMITS } from '../domain/backtest/limits.js';
import { DomainError } from '../domain/shared/errors.js';
import { UUID_PATTERN } from '../domain/shared/ids.js';
import { versionCode } from '../projections/automations/queries.js';
import { accountForStreamType } from './accounts.js';
import { runnable, runTarget } from './automations.js';
import type { ToolContext } from './tool.js';

// Starting and reading backtests for a user (backtest_automation and the CLI's `backtests`):
// the code resolved as run_automation resolves it, the window checked, the start recorded and handed
// to the workers; a backtest read (or cancelled) from its own stream.

const DAY_MS = 86_400_000;

/** What starting or reading a backtest needs of a tool call's context. */
export type BacktestCaller = Pick<ToolContext, 'db' | 'userId' | 'now' | 'store' | 'backtests'>;

export interface BacktestArguments {
  automation_id?: string | undefined;
  version?: number | undefined;
  code?: string | undefined;
  stream_type?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/** Starts a backtest (validated arguments: automation_id or code) and answers it as queued. */
export async function requestBacktest(ctx: BacktestCaller, input: BacktestArguments) {
  if (!ctx.store || !ctx.backtests)
    throw new DomainError(
      'unavailable',
      'this server runs no backtests (no backtest workers are configured); retry later',
    );
  const target = await runTarget(ctx, input);
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
  return readBacktest(ctx, backtest_id, false);
}

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
    input.since !== undefined
      ? time('since', input.since)
      : new Date(until.getTime() - BACKTEST_LIMITS.defaultDays * DAY_MS);
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

/** The caller's backtest as its record has it; `cancel` asks it to stop first. */
export async function readBacktest(ctx: BacktestCaller, backtest_id: string, cancel: boolean) {
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
