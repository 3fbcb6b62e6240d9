import {
  type CallToolResult,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type InputRequiredResult,
  isInputRequiredResult,
  type JSONRPCRequest,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
  type ResourceTemplateType,
  type Result,
  Server,
  type ServerContext,
  type ServerOptions,
  type Tool as ToolListing,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { SERVICE_VERSION } from './changelog.js';
import { DomainError } from '../domain/shared/errors.js';
import { errorResult, unexpectedError } from './errors.js';
import type { ToolContext } from './tool.js';

// One MCP server over a catalog: the service's (src/mcp/catalog.ts), or in tests the
// conformance suite's fixtures, served through the same factory, transport, limits and errors.

/** A tool as served: ours (`Tool` of tool.ts) ignore the SDK's request context. */
export interface CatalogTool {
  name: string;
  listing: ToolListing;
  call(args: unknown, ctx: ToolContext, request: ServerContext): Promise<CallToolResult | InputRequiredResult>;
}

/** Why a caller may not use a tool: as an unknown tool (thrown), or listed nowhere and answered with this error. */
export type Refusal = ProtocolError | CallToolResult;

/** A resource's read gets the caller's context (some read the database, per user). */
export interface CatalogResource {
  listing: Resource;
  read(ctx: ToolContext): ReadResourceResult | Promise<ReadResourceResult>;
}

export interface CatalogResourceTemplate {
  listing: ResourceTemplateType;
  /** the resource at `uri`, or undefined when the template does not match it */
  read(uri: string, ctx: ToolContext): ReadResourceResult | undefined | Promise<ReadResourceResult | undefined>;
}

export interface CatalogPrompt {
  listing: Prompt;
  get(args: Record<string, string>, request: ServerContext): Promise<GetPromptResult | InputRequiredResult>;
}

export interface Catalog {
  tools: readonly CatalogTool[];
  /** what this caller may use (asked once per list or call); absent, every tool for everyone */
  access?(ctx: ToolContext): (tool: CatalogTool) => Promise<Refusal | undefined>;
  resources: readonly CatalogResource[];
  resourceTemplates: readonly CatalogResourceTemplate[];
  prompts: readonly CatalogPrompt[];
  /** completion/complete, for catalogs whose prompts or templates complete arguments */
  complete?(request: CompleteRequest): CompleteResult;
  /** verifies the `requestState` a client echoes in a multi-round call */
  requestState?: ServerOptions['requestState'];
}

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

const everyTool = () => async () => undefined;

/**
 * One MCP server over `catalog`, for one request (HTTP) or one connection (stdio). Tools are
 * served through low-level handlers rather than `registerTool`, because the SDK would validate
 * the input itself and answer with its own error text instead of our `invalid` /
 * `unknown_argument`. `context` is asked once per list or call.
 */
export function buildMcpServer(context: () => ToolContext, catalog: Catalog): Server {
  const server = new ToolServer(
    { name: 'marketplace-automation-service', version: SERVICE_VERSION },
    {
      capabilities: {
        tools: {},
        resources: {},
        // declared with no prompts too: clients of 2026-07-28 ask every server's prompts/list for its cache hints
        prompts: {},
        ...(catalog.complete ? { completions: {} } : {}),
      },
      ...(catalog.requestState ? { requestState: catalog.requestState } : {}),
    },
  );
  const access = catalog.access ?? everyTool;
  const byName = new Map(catalog.tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler('tools/list', async () => {
    const ctx = context();
    const refusals = await Promise.all(catalog.tools.map(access(ctx))).catch((err: unknown) => {
      ctx.logger.error({ err }, 'listing the tools failed');
      throw new ProtocolError(ProtocolErrorCode.InternalError, unexpectedError().detail);
    });
    return { tools: catalog.tools.filter((_, i) => !refusals[i]).map((tool) => tool.listing) };
  });
  server.setRequestHandler(
    'tools/call',
    { params: LooseCallToolParams },
    async ({ name, arguments: args }, request) => {
      const tool = byName.get(name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool '${name}'`);
      const ctx = context();
      // what failed (a database's own message) goes to the log, as a tool's own failures do
      const refused = await access(ctx)(tool).catch((err: unknown) => {
        ctx.logger.error({ err, tool: name }, 'checking access to a tool failed');
        return errorResult(unexpectedError());
      });
      if (refused instanceof ProtocolError) throw refused;
      const result = refused ?? (await tool.call(args, ctx, request));
      return isInputRequiredResult(result) ? result : server.projectCallToolResult(result, tool.listing.outputSchema);
    },
  );
  serveResources(server, catalog, context);
  servePrompts(server, catalog);
  if (catalog.complete) server.setRequestHandler('completion/complete', async (request) => catalog.complete!(request));
  return server;
}

function serveResources(server: Server, { resources, resourceTemplates }: Catalog, context: () => ToolContext): void {
  server.setRequestHandler('resources/list', async () => ({ resources: resources.map((r) => r.listing) }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: resourceTemplates.map((t) => t.listing),
  }));
  server.setRequestHandler('resources/read', async ({ params: { uri } }) => {
    const ctx = context();
    try {
      const fixed = resources.find((r) => r.listing.uri === uri);
      if (fixed) return await fixed.read(ctx);
      for (const template of resourceTemplates) {
        const read = await template.read(uri, ctx);
        if (read) return read;
      }
    } catch (err) {
      // a known problem keeps its spec code (in the error's data); anything else goes to the log only
      if (err instanceof DomainError)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${err.code}: ${err.detail}`, {
          code: err.code,
          detail: err.detail,
          ...err.extra,
        });
      if (err instanceof ProtocolError) throw err;
      ctx.logger.error({ err, uri }, 'reading a resource failed');
      throw new ProtocolError(ProtocolErrorCode.InternalError, unexpectedError().detail);
    }
    throw new ResourceNotFoundError(uri);
  });
}

function servePrompts(server: Server, { prompts }: Catalog): void {
  server.setRequestHandler('prompts/list', async () => ({ prompts: prompts.map((p) => p.listing) }));
  server.setRequestHandler('prompts/get', async ({ params: { name, arguments: args = {} } }, request) => {
    const prompt = prompts.find((p) => p.listing.name === name);
    if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown prompt '${name}'`);
    const missing = (prompt.listing.arguments ?? []).filter((a) => a.required && args[a.name] === undefined);
    if (missing.length > 0)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `the prompt '${name}' needs the argument${missing.length > 1 ? 's' : ''} ${missing.map((a) => `'${a.name}'`).join(', ')}`,
      );
    return prompt.get(args, request);
  });
}
