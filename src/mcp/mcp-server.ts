import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { changelogMarkdown, SERVICE_VERSION } from './changelog.js';
import { isVendorOnly } from '../projections/accounts/queries.js';
import { DomainError } from '../domain/shared/errors.js';
import { errorResult } from './errors.js';
import type { ToolContext } from './tool.js';
import { hiddenFromVendorOnly, notOnDemo, shownTo, toolEntry } from './tool-table.js';
import { TOOLS } from './tools/index.js';

/** tools/call with params as sent; the handler checks them (the SDK's schema would answer -32603). */
const LooseCallToolRequest = z.looseObject({
  method: z.literal('tools/call'),
  params: z
    .looseObject({ name: z.unknown().optional(), arguments: z.unknown().optional() })
    .catch({ name: undefined, arguments: undefined }),
});
type LooseCallToolRequest = z.infer<typeof LooseCallToolRequest>;

/**
 * One MCP server over our tools and resources. Tools are served through the low-level
 * handlers rather than `registerTool`, because the SDK would validate the input itself
 * and answer with its own error text instead of our `invalid` / `unknown_argument`.
 * `context` is asked once per tool call.
 */
export function buildMcpServer(context: () => ToolContext): McpServer {
  const server = new McpServer(
    { name: 'marketplace-automation-service', version: SERVICE_VERSION },
    { capabilities: { tools: {} } },
  );
  // where each tool is shown comes from the tool table (spec 4.1)
  const served = TOOLS.map((tool) => ({ tool, entry: toolEntry(tool.name) }));
  const byName = new Map(served.map((s) => [s.tool.name, s]));
  server.server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { db, userId, endpoint } = context();
    const vendorOnly = await isVendorOnly(db, userId);
    return { tools: served.filter((s) => shownTo(s.entry, endpoint, vendorOnly)).map((s) => s.tool.listing) };
  });
  // Registered on the protocol layer, past the SDK server's own tools/call check: that check
  // answers arguments that are not an object (an array, a string, null) with -32603 and a zod
  // dump. Ours reads them as given, and the tool answers `invalid` like any other bad argument.
  Protocol.prototype.setRequestHandler.call(
    server.server,
    LooseCallToolRequest,
    async (request: LooseCallToolRequest) => {
      const { name, arguments: args } = request.params;
      if (typeof name !== 'string')
        throw new McpError(ErrorCode.InvalidParams, 'tools/call needs params.name, the name of a tool (a string)');
      const found = byName.get(name);
      if (!found) throw new McpError(ErrorCode.InvalidParams, `unknown tool '${name}'`);
      const { tool, entry } = found;
      const ctx = context();
      // as absent there as an unknown tool (spec 4.1 availability)
      if (ctx.endpoint === 'demo' && notOnDemo(entry))
        throw new McpError(
          ErrorCode.InvalidParams,
          `the tool '${tool.name}' is not available on the demo endpoint; use /mcp with your own accounts`,
        );
      // hidden from a vendor-only user (spec 1.6), and refused as the seller data it would read
      if (hiddenFromVendorOnly(entry) && (await isVendorOnly(ctx.db, ctx.userId)))
        return errorResult(
          new DomainError(
            'not_connected',
            `${tool.name} reads seller data and every account you have is a vendor account (no selling connection)`,
          ),
        );
      return tool.call(args, ctx);
    },
  );
  server.registerResource(
    'changelog',
    'resource://service/changelog.md',
    { title: 'Changelog', description: 'Recent product changes, newest first', mimeType: 'text/markdown' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: changelogMarkdown() }] }),
  );
  return server;
}
