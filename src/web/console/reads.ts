import type { FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import type { Endpoint, Tool, ToolContext } from '../../mcp/tool.js';

// The console reads as an MCP call of its visitor would (docs/decisions/156-seller-console.md):
// a tool context without an event store, so nothing a page does can write.

export interface ConsoleReader {
  /** whose accounts the page shows */
  userId: string;
  /** 'demo' for the demo seller's pages at `/`, as /demo/mcp reads it */
  endpoint: Endpoint;
}

export const readContext = (req: FastifyRequest, db: Knex, reader: ConsoleReader, now: () => Date): ToolContext => ({
  db,
  userId: reader.userId,
  endpoint: reader.endpoint,
  logger: req.log,
  requestId: req.id,
  now,
});

/** The error a tool answered (spec 7): `code`, `detail`, and the argument it is about. */
export interface ToolFailure {
  code: string;
  detail: string;
  argument?: string;
  [extra: string]: unknown;
}

export type Outcome<T> = { ok: true; answer: T } | { ok: false; error: ToolFailure };

/** A tool's answer or its error (an error result's text is its `{ code, detail, … }`), as a page shows either. */
export async function outcomeOf<T>(tool: Tool, args: Record<string, unknown>, ctx: ToolContext): Promise<Outcome<T>> {
  const result = await tool.call(args, ctx);
  if (!result.isError) return { ok: true, answer: result.structuredContent as T };
  const [text] = result.content as Array<{ type: 'text'; text: string }>;
  return { ok: false, error: JSON.parse(text!.text) as ToolFailure };
}

/** A read tool's structured answer; a refused call is the page's failure. */
export async function answerOf<T>(tool: Tool, args: Record<string, unknown>, ctx: ToolContext): Promise<T> {
  const out = await outcomeOf<T>(tool, args, ctx);
  if (!out.ok) throw new Error(`${tool.name} refused the console's read: ${out.error.code}: ${out.error.detail}`);
  return out.answer;
}
