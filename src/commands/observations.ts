import { observationDecider, pageStreamId, scopeStreamId } from '../domain/observation/decide.js';
import type { ObservationKey } from '../domain/observation/events.js';
import { handleCommand, type CommandContext } from './handler.js';

/** Records one page of a read unless it equals what was last recorded; returns 1 if recorded. */
export async function observePage(
  ctx: CommandContext,
  key: ObservationKey,
  page: number,
  rows: unknown[],
  observedAt: Date,
): Promise<number> {
  const command = { type: 'ObservePage' as const, ...key, page, rows, observed_at: observedAt.toISOString() };
  return (await handleCommand(observationDecider, pageStreamId(key, page), command, ctx)).events.length;
}

/** Closes a complete read of the scope: pages at or past `pages` no longer exist. */
export async function completeSync(
  ctx: CommandContext,
  key: ObservationKey,
  pages: number,
  observedAt: Date,
): Promise<number> {
  const command = { type: 'CompleteSync' as const, ...key, pages, observed_at: observedAt.toISOString() };
  return (await handleCommand(observationDecider, scopeStreamId(key), command, ctx)).events.length;
}
