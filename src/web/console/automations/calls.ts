import type { FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { DomainError } from '../../../domain/shared/errors.js';
import { withOwnWrites } from '../../../mcp/read-your-writes.js';
import type { Tool, ToolContext, ToolServices } from '../../../mcp/tool.js';
import { readContext, type ConsoleReader } from '../reads.js';

// How the Automations pages call the tools (docs/decisions/158-console-automations.md): the
// signed-in seller's pages with a context that has the service's store, sandbox and queues, as
// an MCP call of theirs has, so that every write goes through the tool's own command and the
// read-your-writes rule; the demo seller's pages with the read-only context of reads.ts.

/** The error a tool answered (spec 7): `code`, `detail`, and the argument it is about. */
export interface ToolFailure {
  code: string;
  detail: string;
  argument?: string;
  [extra: string]: unknown;
}

export type Outcome<T> = { ok: true; answer: T } | { ok: false; error: ToolFailure };

/** A tool's answer or its error, as the page shows either. */
export async function outcomeOf<T>(tool: Tool, args: Record<string, unknown>, ctx: ToolContext): Promise<Outcome<T>> {
  const result = await tool.call(args, ctx);
  if (!result.isError) return { ok: true, answer: result.structuredContent as T };
  const [text] = result.content as Array<{ type: 'text'; text: string }>;
  return { ok: false, error: JSON.parse(text!.text) as ToolFailure };
}

/** The context of a page's tool calls: writing for the signed-in seller (`services`), read-only without. */
export const pageContext = (
  req: FastifyRequest,
  db: Knex,
  reader: ConsoleReader,
  now: () => Date,
  services: ToolServices | undefined,
): ToolContext => ({ ...readContext(req, db, reader, now), ...services });

/**
 * A write no tool makes (a command the console calls itself), under the same read-your-writes rule
 * as a tool call: the seller's next page waits for the read models to show it. Its refusal, or null.
 */
export async function ownWrite(
  ctx: ToolContext,
  write: (ctx: ToolContext) => Promise<unknown>,
): Promise<ToolFailure | null> {
  let failure: ToolFailure | null = null;
  await withOwnWrites(ctx, async (ctx) => {
    try {
      await write(ctx);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      failure = { ...err.extra, code: err.code, detail: err.detail };
    }
    return { content: [] };
  });
  return failure;
}
