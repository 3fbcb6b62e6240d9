import type { FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { DomainError } from '../../../domain/shared/errors.js';
import { withOwnWrites } from '../../../mcp/read-your-writes.js';
import type { ToolContext, ToolServices } from '../../../mcp/tool.js';
import { readContext, type ConsoleReader, type ToolFailure } from '../reads.js';

// How the Automations pages call the tools (docs/decisions/158-console-automations.md): the
// signed-in seller's pages with a context that has the service's store, sandbox and queues, as
// an MCP call of theirs has, so that every write goes through the tool's own command and the
// read-your-writes rule; the demo seller's pages with the read-only context of reads.ts.

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
