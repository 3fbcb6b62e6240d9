import { toNodeHandler } from '@modelcontextprotocol/node';
import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import { MAX_ARGUMENT_BYTES } from './argument-bounds.js';
import { buildMcpServer, type Catalog } from './mcp-server.js';
import type { ToolContext } from './tool.js';

// The SDK's HTTP entry over our server factory: one fresh server per request, serving revision
// 2026-07-28 (a `_meta` envelope on every request) and, on the same URL, the 2025 revisions
// (the `initialize` handshake, statelessly). The SDK answers what it owns: unsupported
// revisions (-32022), mismatched Mcp-Method / Mcp-Name headers, GET and DELETE (405).

/**
 * The largest MCP message body taken: twice the largest arguments a tool takes, so arguments past
 * their own bound still reach the tool, which answers `invalid` naming them; past this, 413.
 */
export const MAX_MCP_BODY_BYTES = 2 * MAX_ARGUMENT_BYTES;

/**
 * The SDK hands the server factory only the request's `authInfo` (verified by our route, never
 * by the SDK), so the caller's context rides in it.
 */
export const callAuth = (call: ToolContext): AuthInfo => ({
  token: '',
  clientId: call.userId,
  scopes: [],
  extra: { call },
});

function callOf(auth: AuthInfo | undefined): ToolContext {
  const call = auth?.extra?.call as ToolContext | undefined;
  if (!call) throw new Error('an MCP request reached the server factory without its caller');
  return call;
}

/** A Node (req, res, parsedBody) handler serving `catalog`; `req.auth` must be `callAuth(…)` of the caller. */
export function mcpHandler(catalog: Catalog, onerror: (err: Error) => void) {
  const handler = createMcpHandler(({ authInfo }) => buildMcpServer(() => callOf(authInfo), catalog), {
    onerror,
    maxRequestBodySize: MAX_MCP_BODY_BYTES,
  });
  return toNodeHandler(handler, { onerror, maxRequestBodySize: MAX_MCP_BODY_BYTES });
}
