import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { DomainError } from '../domain/shared/errors.js';
import { isVendorOnly } from '../projections/accounts/queries.js';
import { errorResult } from './errors.js';
import { SERVICE_PROMPTS } from './prompts/index.js';
import { SERVICE_RESOURCES } from './resources/index.js';
import { AMAZON_CATALOG_PARTS, AMAZON_CATALOG_RESOURCE } from '../catalog/resource.js';
import { missingScopes, scopesFor } from '../domain/user/scopes.js';
import type { Catalog, CatalogTool } from './mcp-server.js';
import type { ToolContext } from './tool.js';
import { hiddenFromVendorOnly, notOnDemo, toolEntry } from './tool-table.js';
import { TOOLS } from './tools/index.js';

// What the service serves over MCP: every tool, where the tool table (spec 4.1) shows it, and
// its resources (src/mcp/resources) and prompts (src/mcp/prompts).

/** Who sees and may call a tool, by its row of the tool table; the accounts are read once, and only when a row asks. */
function access(ctx: ToolContext) {
  let vendorOnly: Promise<boolean> | undefined;
  return async (tool: CatalogTool) => {
    const entry = toolEntry(tool.name);
    // a token that may not write is not offered the write tools (its call is refused 403 before this)
    if (ctx.principal && missingScopes(ctx.principal.scopes, scopesFor(entry.kind)).length)
      return new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `the tool '${tool.name}' needs the scopes ${scopesFor(entry.kind).join(' ')}, which your token lacks`,
      );
    // as absent there as an unknown tool (spec 4.1 availability)
    if (ctx.endpoint === 'demo' && notOnDemo(entry))
      return new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `the tool '${tool.name}' is not available on the demo endpoint; use /mcp with your own accounts`,
      );
    // hidden from a vendor-only user (spec 1.6), and refused as the seller data it would read
    if (hiddenFromVendorOnly(entry) && (await (vendorOnly ??= isVendorOnly(ctx.db, ctx.userId))))
      return errorResult(
        new DomainError(
          'not_connected',
          `${tool.name} reads seller data and every account you have is a vendor account (no selling connection)`,
        ),
      );
    return undefined;
  };
}

export const SERVICE_CATALOG: Catalog = {
  tools: TOOLS,
  access,
  resources: [...SERVICE_RESOURCES, AMAZON_CATALOG_RESOURCE],
  resourceTemplates: [AMAZON_CATALOG_PARTS],
  prompts: SERVICE_PROMPTS,
};
