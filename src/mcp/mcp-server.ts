import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { changelogMarkdown, SERVICE_VERSION } from './changelog.js';
import { isVendorOnly } from '../projections/accounts/queries.js';
import type { ToolContext } from './tool.js';
import { TOOLS } from './tools/index.js';

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
  server.server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool '${request.params.name}'`);
    const ctx = context();
    // as absent there as an unknown tool (spec 4.1 availability)
    if (ctx.endpoint === 'demo' && tool.notOnDemo)
      throw new McpError(
        ErrorCode.InvalidParams,
        `the tool '${tool.name}' is not available on the demo endpoint; use /mcp with your own accounts`,
      );
    return tool.call(request.params.arguments, ctx);
  });
  server.registerResource(
    'changelog',
    'resource://service/changelog.md',
    { title: 'Changelog', description: 'Recent product changes, newest first', mimeType: 'text/markdown' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: changelogMarkdown() }] }),
  );
  return server;
}
