import { observationDecider, pageStreamId, scopeStreamId } from '../../domain/observation/decide.js';
import type { ObservationKey } from '../../domain/observation/events.js';
import { handleCommand, handleCreation, type CommandContext } from '../shared/handler.js';

/**
 * How to record: `fresh` when the scope was most likely never recorded (a first sync by
 * report): the event is appended as its stream's first, without reading the stream; only a
 * stream already there is read and decided on as usual. It saves a read per event.
 */
export interface RecordOptions {
  fresh?: boolean;
}

async function record(
  ctx: CommandContext,
  id: string,
  command: Parameters<typeof observationDecider.decide>[0],
  { fresh = false }: RecordOptions,
): Promise<number> {
  if (fresh) {
    const created = await handleCreation(observationDecider, id, command, ctx);
    if (!created.existed) return created.events.length;
  }
  return (await handleCommand(observationDecider, id, command, ctx)).events.length;
}

/** Records one page of a read unless it equals what was last recorded; returns 1 if recorded. */
export function observePage(
  ctx: CommandContext,
  key: ObservationKey,
  page: number,
  rows: unknown[],
  observedAt: Date,
  options: RecordOptions = {},
): Promise<number> {
  const command = { type: 'ObservePage' as const, ...key, page, rows, observed_at: observedAt.toISOString() };
  return record(ctx, pageStreamId(key, page), command, options);
}

/** Closes a complete read of the scope: pages at or past `pages` no longer exist. */
export function completeSync(
  ctx: CommandContext,
  key: ObservationKey,
  pages: number,
  observedAt: Date,
  options: RecordOptions = {},
): Promise<number> {
  const command = { type: 'CompleteSync' as const, ...key, pages, observed_at: observedAt.toISOString() };
  return record(ctx, scopeStreamId(key), command, options);
}
