import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { changelogMarkdown, SERVICE_VERSION } from './changelog.js';
import { isVendorOnly } from '../projections/accounts/queries.js';
import type { ToolContext } from './tool.js';
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
  const byName = new Map(TOOLS.map((t) => [t.name, t]));
  server.server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { db, userId, endpoint } = context();
    const vendorOnly = await isVendorOnly(db, userId);
    return {
      tools: TOOLS.filter((t) => !(vendorOnly && t.sellerOnly) && !(endpoint === 'demo' && t.notOnDemo)).map(
        (t) => t.listing,
      ),
    };
  });
  // Registered on the protocol layer, past the SDK server's own tools/call check: that check
  // answers arguments that are not an object (an array, a string, null) with -32603 and a zod
  // dump. Ours reads them as given, and the tool answers `invalid` like any other bad argument.
  Protocol.prototype.setRequestHandler.call(server.server, LooseCallToolRequest, (request: LooseCallToolRequest) => {
    const { name, arguments: args } = request.params;
    if (typeof name !== 'string')
      throw new McpError(ErrorCode.InvalidParams, 'tools/call needs params.name, the name of a tool (a string)');
    const tool = byName.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool '${name}'`);
    const ctx = context();
    // as absent there as an unknown tool (spec 4.1 availability)
    if (ctx.endpoint === 'demo' && tool.notOnDemo)
      throw new McpError(
        ErrorCode.InvalidParams,
        `the tool '${tool.name}' is not available on the demo endpoint; use /mcp with your own accounts`,
      );
    return tool.call(args, ctx);
  });
  server.registerResource(
    'changelog',
    'resource://service/changelog.md',
    { title: 'Changelog', description: 'Recent product changes, newest first', mimeType: 'text/markdown' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: changelogMarkdown() }] }),
  );
  return server;
}
