import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createEventStore, type EventStore } from '../../src/eventstore/index.js';
import { buildHttpServer, type HttpServerDeps } from '../../src/mcp/server.js';
import { recordErrorCode } from './error-codes.js';
import { SCOPES } from '../../src/domain/user/scopes.js';

// The real HTTP server and the SDK client for tool tests over read models a test filled
// itself (for example through the observed-data harness). Authentication has its own tests;
// here a bearer token `user.<id>` (a colon is not a token character) simply stands for that user.

export interface McpServing {
  base: string;
  /** an MCP client of /mcp acting as the user (declaring `capabilities`), or of /demo/mcp */
  clientFor(userId: string, capabilities?: ClientCapabilities): Promise<Client>;
  /** `headers`: e.g. X-Forwarded-For, believed when `trustProxy` names the loopback */
  demoClient(headers?: Record<string, string>): Promise<Client>;
  close(): Promise<void>;
}

/**
 * `marketplace`: for tools that call the marketplace live (e.g. the harness's simulator);
 * `dispatch`: where write tools hand the receipts they queued; `ingestionSecret`: serves
 * POST /ingest/:account_id; `sandbox` and `dryRuns`: what run_automation runs on; `liveReads`:
 * what read_amazon_operation reads the marketplace with.
 */
export async function serveMcp(
  db: Knex,
  now: () => Date,
  demoUserId: string = randomUUID(),
  extra: Pick<
    HttpServerDeps,
    'marketplace' | 'dispatch' | 'ingestionSecret' | 'sandbox' | 'dryRuns' | 'liveReads' | 'backtests' | 'trustProxy'
  > & {
    storeUrl?: string;
    /** what the tools append through instead of the store itself: a store other writers race, say */
    wrapStore?: (store: EventStore) => EventStore;
  } = {},
): Promise<McpServing> {
  // write tools append to the test database's event store (DATABASE_URL, set by test/setup.ts),
  // or, for tests of the store's failures, to the store at `storeUrl`
  const { storeUrl, wrapStore, ...deps } = extra;
  const store = createEventStore({ DATABASE_URL: storeUrl ?? process.env.DATABASE_URL! });
  const app = buildHttpServer({
    store: wrapStore ? wrapStore(store) : store,
    db,
    logger: pino({ level: 'silent' }),
    authenticate: async (token) =>
      token.startsWith('user.')
        ? {
            userId: token.slice('user.'.length),
            scopes: SCOPES,
            client: { kind: 'oauth_client', client_id: 'tool-test' },
          }
        : null,
    demoUserId,
    now,
    ...deps,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const clients: Client[] = [];
  const connect = async (path: string, headers: Record<string, string>, capabilities: ClientCapabilities = {}) => {
    const client = new Client({ name: 'tool-test', version: '1.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  return {
    base,
    clientFor: (userId, capabilities) => connect('/mcp', { authorization: `Bearer user.${userId}` }, capabilities),
    demoClient: (headers = {}) => connect('/demo/mcp', headers),
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await app.close();
      await store.close();
    },
  };
}

/** A tool's answer as tests read it: its structured content, or an error's body (the JSON of its text). */
export type ToolAnswer = CallToolResult & { structuredContent: Record<string, any> };

/** The body of a result: structured content, or for an error the JSON its text holds. */
export function answerOf(result: object): ToolAnswer {
  const answer = result as ToolAnswer;
  if (!answer.isError) {
    recordItemErrorCodes(answer.structuredContent);
    return answer;
  }
  const [text] = answer.content as Array<{ type: string; text: string }>;
  const body = JSON.parse(text!.text) as Record<string, any>;
  recordErrorCode(body.code);
  return { ...answer, structuredContent: body };
}

/** The codes of errors an answer carries per item (update_listing's rows, a receipt's error), received as surely as a tool error's. */
function recordItemErrorCodes(value: unknown): void {
  if (Array.isArray(value)) for (const v of value) recordItemErrorCodes(v);
  else if (value && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      if (key === 'error' && v && typeof v === 'object') recordErrorCode((v as { code?: unknown }).code);
      recordItemErrorCodes(v);
    }
}

/** Calls a tool; tests read its untyped structured output. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return answerOf((await client.callTool({ name, arguments: args })) as CallToolResult);
}

/** The JSON-RPC answer to one message POSTed as is (a client would refuse to send malformed ones). */
export interface RpcAnswer {
  status: number;
  body: { result?: Record<string, any>; error?: { code: number; message: string } } | null;
}

/** POSTs one JSON-RPC message to an MCP endpoint (`url`: …/mcp or …/demo/mcp), bounded by `timeoutMs`. */
export async function postRpc(
  url: string,
  message: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof message === 'string' ? message : JSON.stringify(message),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = rpcBody(res.headers.get('content-type'), await res.text());
  // a tool's error answered to a message sent as is counts as received too
  if (body?.result?.isError) answerOf(body.result);
  return { status: res.status, body };
}

/** A JSON-RPC answer's body: JSON, or the one `message` event of an SSE stream (the 2025 revisions' answers). */
function rpcBody(contentType: string | null, text: string): RpcAnswer['body'] {
  if (!text) return null;
  if (!contentType?.startsWith('text/event-stream')) return JSON.parse(text) as RpcAnswer['body'];
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return data ? (JSON.parse(data.slice('data: '.length)) as RpcAnswer['body']) : null;
}

/** A tools/call message whose `arguments` may be anything at all. */
export const toolCall = (name: unknown, args: unknown, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
});
