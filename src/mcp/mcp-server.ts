import {
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type Result,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { changelogMarkdown, SERVICE_VERSION } from './changelog.js';
import { isVendorOnly } from '../projections/accounts/queries.js';
import { DomainError } from '../domain/shared/errors.js';
import { errorResult } from './errors.js';
import type { ToolContext } from './tool.js';
import { hiddenFromVendorOnly, notOnDemo, shownTo, toolEntry } from './tool-table.js';
import { TOOLS } from './tools/index.js';

/** tools/call params as sent; the handler checks them (the SDK's schema would answer -32602 with its own text). */
const LooseCallToolParams = z.looseObject({ name: z.string(), arguments: z.unknown().optional() });

const isArgumentsObject = (args: unknown) =>
  args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args));

/**
 * The SDK's low-level server, except that `tools/call` reaches our handler with its arguments
 * as sent. The SDK checks a call against the spec before any handler runs and answers
 * arguments that are not an object (an array, a string, null) with -32602 and a schema dump;
 * our tools answer those `invalid` naming the argument, like any other bad argument. So the
 * check sees `{}` in their place, and our handler what was sent. `_wrapHandler` is the hook the
 * SDK gives subclasses for exactly this (its own result checks still run).
 */
class ToolServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    const sent = new WeakMap<JSONRPCRequest, JSONRPCRequest>();
    const checked = super._wrapHandler(method, (request, ctx) => handler(sent.get(request) ?? request, ctx));
    return (request, ctx) => {
      const params = request.params ?? {};
      if (typeof params.name !== 'string')
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'tools/call needs params.name, the name of a tool (a string)',
        );
      if (isArgumentsObject(params.arguments)) return checked(request, ctx);
      const accepted = { ...request, params: { ...params, arguments: {} } };
      sent.set(accepted, request);
      return checked(accepted, ctx);
    };
  }
}

/**
 * One MCP server over our tools and the changelog resource, for one request (HTTP) or one
 * connection (stdio). Tools are served through low-level handlers rather than `registerTool`,
 * because the SDK would validate the input itself and answer with its own error text instead
 * of our `invalid` / `unknown_argument`. `context` is asked once per tool call.
 */
export function buildMcpServer(context: () => ToolContext): Server {
  const server = new ToolServer(
    { name: 'marketplace-automation-service', version: SERVICE_VERSION },
    { capabilities: { tools: {}, resources: {} } },
  );
  // where each tool is shown comes from the tool table (spec 4.1)
  const served = TOOLS.map((tool) => ({ tool, entry: toolEntry(tool.name) }));
  const byName = new Map(served.map((s) => [s.tool.name, s]));
  server.setRequestHandler('tools/list', async () => {
    const { db, userId, endpoint } = context();
    const vendorOnly = await isVendorOnly(db, userId);
    return { tools: served.filter((s) => shownTo(s.entry, endpoint, vendorOnly)).map((s) => s.tool.listing) };
  });
  server.setRequestHandler('tools/call', { params: LooseCallToolParams }, async ({ name, arguments: args }) => {
    const found = byName.get(name);
    if (!found) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool '${name}'`);
    const { tool, entry } = found;
    const ctx = context();
    // as absent there as an unknown tool (spec 4.1 availability)
    if (ctx.endpoint === 'demo' && notOnDemo(entry))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `the tool '${tool.name}' is not available on the demo endpoint; use /mcp with your own accounts`,
      );
    // hidden from a vendor-only user (spec 1.6), and refused as the seller data it would read
    const result =
      hiddenFromVendorOnly(entry) && (await isVendorOnly(ctx.db, ctx.userId))
        ? errorResult(
            new DomainError(
              'not_connected',
              `${tool.name} reads seller data and every account you have is a vendor account (no selling connection)`,
            ),
          )
        : await tool.call(args, ctx);
    return server.projectCallToolResult(result, tool.listing.outputSchema);
  });
  registerChangelog(server);
  return server;
}

const CHANGELOG_URI = 'resource://service/changelog.md';

function registerChangelog(server: Server): void {
  const listing = {
    uri: CHANGELOG_URI,
    name: 'changelog',
    title: 'Changelog',
    description: 'Recent product changes, newest first',
    mimeType: 'text/markdown',
  };
  server.setRequestHandler('resources/list', async () => ({ resources: [listing] }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', async ({ params: { uri } }) => {
    if (uri !== CHANGELOG_URI) throw new ResourceNotFoundError(uri);
    return { contents: [{ uri, mimeType: listing.mimeType, text: changelogMarkdown() }] };
  });
}
