import type { CallToolResult } from '@modelcontextprotocol/server';
import { comparePositions, type Position } from '../eventstore/port.js';
import { reportingAppends, type Appended } from '../eventstore/reporting.js';
import { pollUntil } from '../infra/poll.js';
import {
  onlyStopped,
  projectionsBehind,
  projectionsToReach,
  rememberWrites,
  type Behind,
} from '../projections/read-your-writes.js';
import type { ToolContext } from './tool.js';

// Read-your-writes (docs/decisions/084-read-your-writes.md; docs/architecture.md): a call first waits,
// bounded, until the read models the caller's own earlier writes touched have projected them,
// then runs with a store that reports what it appends, and keeps that for the caller's next
// calls before it answers. The caller is the user: every session, endpoint and token of theirs
// shares it. The demo saves nothing and never waits. A projection stopped by a failed apply is not
// waited for (it moves only once restarted): the call answers at once, naming it.

/** How long a call waits for the read models to show the caller's own earlier writes. */
export const READ_YOUR_WRITES_MS = 5_000;
const POLL_MS = 10;

/** `<commit>/<prepare>`: how a log position is written in an answer's `_meta`. */
const positionText = (p: Position): string => `${p.commit}/${p.prepare}`;

/**
 * Runs one tool call under the rule. A write's answer carries the furthest log position it
 * reached in `_meta.log_position`; past the bound a call answers from the read models as they
 * are, naming those still behind in `_meta.behind_own_writes` (and in the log).
 */
export async function withOwnWrites(
  ctx: ToolContext,
  call: (ctx: ToolContext) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  if (ctx.endpoint === 'demo') return call(ctx);
  let state: Behind = { behind: [], stopped: [] };
  // 'unknown' when the check itself failed: the call's own reads meet the same fault and answer it in the spec's terms
  const caughtUp = await pollUntil(
    async () => onlyStopped((state = await projectionsBehind(ctx.db, ctx.userId))),
    READ_YOUR_WRITES_MS,
    POLL_MS,
  ).catch((err: unknown) => {
    ctx.logger.warn({ err }, "could not read how far the caller's own writes are projected");
    return 'unknown' as const;
  });
  const behind = caughtUp === 'unknown' ? [] : state.behind;
  if (behind.length > 0)
    ctx.logger.warn(
      { behind, stopped: state.stopped },
      "read models still behind the caller's own writes: answering as they are",
    );
  const appended: Appended[] = [];
  const store = ctx.store && reportingAppends(ctx.store, (events) => appended.push(...events));
  const result = await call(store ? { ...ctx, store } : ctx);
  // tool calls answer their failures, so this runs after a call that failed having written too
  if (appended.length > 0)
    await rememberWrites(ctx.db, ctx.userId, projectionsToReach(appended)).catch((err: unknown) =>
      ctx.logger.error({ err }, "the call's writes stand, but the caller's next reads may not wait for them"),
    );
  const furthest = appended
    .map((e) => e.position)
    .reduce<Position | null>((a, b) => (a === null || comparePositions(a, b) < 0 ? b : a), null);
  const meta = {
    ...(furthest ? { log_position: positionText(furthest) } : {}),
    ...(behind.length > 0 ? { behind_own_writes: behind } : {}),
  };
  return Object.keys(meta).length > 0 ? { ...result, _meta: { ...result._meta, ...meta } } : result;
}
