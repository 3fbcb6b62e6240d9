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

/** What a refused call said: the spec's error code and its detail. */
export interface Refusal {
  code: string;
  detail: string;
}

/** A tool's structured answer, or its refusal (an error result's text is its `{ code, detail }`). */
export async function callTool<T>(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<{ answer: T } | { refused: Refusal }> {
  const result = await tool.call(args, ctx);
  if (!result.isError) return { answer: result.structuredContent as T };
  const first = result.content[0];
  return { refused: JSON.parse(first?.type === 'text' ? first.text : '{}') as Refusal };
}

/** A read tool's structured answer; a refused call is the page's failure. */
export async function answerOf<T>(tool: Tool, args: Record<string, unknown>, ctx: ToolContext): Promise<T> {
  const called = await callTool<T>(tool, args, ctx);
  if ('refused' in called)
    throw new Error(`${tool.name} refused the console's read: ${called.refused.code}: ${called.refused.detail}`);
  return called.answer;
}
