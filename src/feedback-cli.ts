import { parseArgs } from 'node:util';
import { FEEDBACK_KINDS, type FeedbackKind } from './domain/feedback/events.js';
import type { Knex } from './infra/db.js';
import { feedbackProjection } from './projections/feedback/projection.js';
import { listFeedback } from './projections/feedback/queries.js';
import type { Projection } from './projections/projection.js';
import { UsageError } from './projections/rebuild-command.js';

// `npm run cli -- feedback list`: what users sent with report_bug and suggest_idea (spec 4.10),
// newest first, for the operators.

export const FEEDBACK_USAGE = `  feedback list [--kind bug|idea] [--since <ISO date or time>] [--limit <n>]
                                              bug reports and ideas from users, newest first (default 50)`;

export interface FeedbackCliDeps {
  db: Knex;
  /** catches the given projections up with the log (the list is complete without a running projector) */
  project(position: undefined, which: Projection[]): Promise<void>;
  print(line: string): void;
}

export async function runFeedbackCommand(
  action: string | undefined,
  args: string[],
  deps: FeedbackCliDeps,
): Promise<void> {
  if (action !== 'list') throw new UsageError(`usage:\n${FEEDBACK_USAGE}`);
  const { values } = parseArgs({
    args,
    options: { kind: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } },
    strict: true,
  });
  const kind = values.kind;
  if (kind !== undefined && !(FEEDBACK_KINDS as readonly string[]).includes(kind))
    throw new UsageError(`--kind: '${kind}' is neither bug nor idea`);
  const since = values.since;
  if (since !== undefined && (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(Date.parse(since))))
    throw new UsageError(`--since: '${since}' is not an ISO 8601 date or time (e.g. 2026-12-01)`);
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new UsageError(`--limit: '${values.limit}' is not a number from 1 to 1000`);
  await deps.project(undefined, [feedbackProjection]);
  const rows = await listFeedback(deps.db, {
    ...(kind ? { kind: kind as FeedbackKind } : {}),
    ...(since ? { since: new Date(since).toISOString() } : {}),
    limit,
  });
  if (rows.length === 0) deps.print('no feedback');
  for (const r of rows) {
    deps.print(`${r.submitted_at}  ${r.kind}  ${r.feedback_id}  user ${r.user_id}`);
    deps.print(`  title: ${r.title}`);
    for (const field of ['what_happened', 'expected', 'tool_name', 'detail'] as const)
      if (r[field] !== null) deps.print(`  ${field}: ${r[field]!.replace(/\n/g, '\n    ')}`);
  }
}
