import { z } from 'zod';
import { pinnedRevision, presentSchema, selectedRevision } from '../../catalog/discovery.js';
import type { Content } from '../../catalog/operation.js';
import { METHODS } from '../../catalog/operation.js';
import { findOperation, type CatalogOperation } from '../../catalog/queries.js';
import { PROVIDERS, RESTRICTED } from '../../catalog/reviewed.js';
import { DomainError } from '../../domain/shared/errors.js';
import { accountArgument, accountsForRead } from '../accounts.js';
import { readTool } from '../tool.js';

// Spec 4.9: one cataloged operation's definition, one direction at a time: the request's
// parameters and body schema, or one response's schema by status and media type. Schema parts
// too large to show inline, and recursive references, name a resource holding them
// (docs/decisions/106-catalog-discovery.md).

const KEY = /^(sp_api|ads_api):[^:@\s]+:[^:@\s]+:[^:@\s]+$/;

const schemaOutput = z
  .record(z.string(), z.unknown())
  .nullable()
  .describe(
    'JSON Schema, dereferenced, without examples or vendor extensions; a part too large to show is `{ oversized: true, resource, bytes }` and a recursive reference `{ $ref, resource }`: read the resource; null when the document declares none',
  );

const TOOL_OF = {
  live_read: 'read_amazon_operation',
  report: 'request_report',
  queued_write: 'queue_mutations',
} as const;

export const getAmazonOperation = readTool('get_amazon_operation', 'Get a marketplace API operation', {
  description:
    'Reads one cataloged operation by its qualified key (from search_amazon_operations): method, path, summary, deprecated, `schema_digest` (pin it with `catalog_revision` in operation_dependencies), `bindings` (whether the service runs it, with which tool, against which target type, and, per account, whether the connection it needs is there; why not when it is not: `adapter_missing` for generic operations, `restricted_data_disabled` for restricted ones), `coverage`, and the schema of one direction: `request` (default: parameters and the body schema) or `response` (pass `status`, e.g. 200 or 207). Pass `media_type` when several are declared (`media_types` lists them). Too-large parts come back as `{ oversized: true, resource }`: read that resource. `operation` may be written `<key>@<catalog_revision>` to ask about a pinned revision: one no longer selected answers stale_revision with `current_revision`.',
  input: {
    operation: z
      .string()
      .min(1)
      .max(500)
      .describe('qualified key `<provider>:<family>:<version>:<operationId>`, optionally `@<catalog_revision>`'),
    direction: z.enum(['request', 'response']).default('request').describe('request (default) or response'),
    status: z
      .union([z.number().int().min(100).max(599), z.string().min(1).max(16)])
      .optional()
      .describe('the HTTP status of the response (required with direction: response), e.g. 200, 207, "4XX", "default"'),
    media_type: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('required when the direction declares several media types'),
    account: accountArgument,
  },
  output: z.object({
    catalog_revision: z.string(),
    operation: z.string().describe('the qualified key'),
    provider: z.enum(PROVIDERS),
    family: z.string(),
    version: z.string().describe("the provider's contract version"),
    operation_id: z.string(),
    method: z.enum(METHODS),
    path: z.string(),
    summary: z.string().nullable(),
    description: z.string().nullable(),
    deprecated: z.boolean().describe('the document marks it deprecated'),
    tags: z.array(z.string()),
    schema_digest: z.string().describe("sha256 of the operation's normalized contract"),
    bindings: z.object({
      review: z
        .enum(['live_read', 'report', 'queued_write', 'restricted'])
        .nullable()
        .describe('how it was reviewed; null for a generic operation'),
      executable: z.boolean(),
      tool: z
        .enum(['read_amazon_operation', 'request_report', 'queue_mutations'])
        .nullable()
        .describe('the tool that runs it (queued writes and reports also from automations)'),
      target_type: z.string().nullable().describe('the `target.type` it runs against'),
      action: z.string().nullable().describe('queued writes: the queue_mutations action'),
      reason: z
        .enum(['adapter_missing', 'restricted_data_disabled'])
        .nullable()
        .describe('why it is not executable; null when it is'),
      detail: z.string().nullable(),
      accounts: z
        .array(z.object({ account_id: z.string(), account_name: z.string(), connected: z.boolean() }))
        .describe("each account (or `account`) and whether it has the provider's connection the operation needs"),
    }),
    coverage: z.object({
      schema: z.boolean().describe('the document declares schemas for it'),
      live_read: z.boolean(),
      queued: z.boolean(),
      automation: z.boolean().describe('usable in automations'),
      ingested: z.boolean().describe('its results feed the service’s own data'),
    }),
    statuses: z
      .array(z.object({ status: z.string(), description: z.string().nullable(), media_types: z.array(z.string()) }))
      .describe('every declared response'),
    direction: z.enum(['request', 'response']),
    status: z.string().nullable().describe('the declared response status shown'),
    media_types: z.array(z.string()).describe('media types declared for this direction (and status)'),
    media_type: z.string().nullable().describe('the media type whose schema is shown'),
    parameters: z
      .array(
        z.object({
          name: z.string(),
          in: z.string(),
          required: z.boolean(),
          description: z.string().nullable(),
          schema: schemaOutput,
        }),
      )
      .nullable()
      .describe('request: parameters outside the body; null for a response'),
    body_required: z.boolean().nullable().describe('request: whether a body is required; null for a response'),
    schema: schemaOutput,
  }),
  async handler(input, ctx) {
    const [key, asked, ...more] = input.operation.trim().split('@');
    if (more.length > 0 || !KEY.test(key!))
      throw new DomainError(
        'invalid',
        `operation: '${input.operation}' is not a qualified key <provider>:<family>:<version>:<operationId> (provider sp_api or ads_api), optionally @<catalog_revision>`,
        { argument: 'operation' },
      );
    const revision = asked ? await pinnedRevision(ctx.db, asked, 'operation') : await selectedRevision(ctx.db);
    const op = await findOperation(ctx.db, key!, revision);
    if (!op)
      throw new DomainError(
        'not_found',
        `operation: no operation ${key} in catalog revision ${revision}; find keys with search_amazon_operations`,
        { argument: 'operation' },
      );
    const accounts = await accountsForRead(ctx, input.account);
    const shown = direction(op, input);
    return {
      catalog_revision: revision,
      operation: op.key,
      provider: op.provider,
      family: op.family,
      version: op.version,
      operation_id: op.operationId,
      method: op.method,
      path: op.path,
      summary: op.summary,
      description: op.description,
      deprecated: op.deprecated,
      tags: op.tags,
      schema_digest: op.schema_digest,
      bindings: {
        review: op.review,
        executable: op.executable,
        tool: op.review && op.review !== 'restricted' ? TOOL_OF[op.review] : null,
        target_type: op.target_type,
        action: op.action,
        reason: op.executable
          ? null
          : op.review === 'restricted'
            ? ('restricted_data_disabled' as const)
            : ('adapter_missing' as const),
        detail: op.executable
          ? null
          : op.review === 'restricted'
            ? `restricted: it ${RESTRICTED.find((r) => r.key === op.key)!.why}; never run`
            : 'generic: described for reference, not reviewed for the service to run',
        accounts: accounts.map((a) => ({
          account_id: a.id,
          account_name: a.name,
          connected: (op.provider === 'sp_api' ? a.selling : a.ads) !== null,
        })),
      },
      coverage: {
        schema: op.has_schema,
        live_read: op.review === 'live_read',
        queued: op.review === 'report' || op.review === 'queued_write',
        automation: op.review === 'report' || op.review === 'queued_write',
        ingested: op.ingested,
      },
      statuses: Object.entries(op.responses).map(([status, r]) => ({
        status,
        description: r.description,
        media_types: Object.keys(r.content),
      })),
      ...shown,
      parameters:
        shown.direction === 'request' ? op.parameters.map((p) => ({ ...p, schema: present(p.schema) })) : null,
      schema: present(shown.schema),
    };

    function present(schema: unknown) {
      return schema ? (presentSchema(schema, revision) as Record<string, unknown>) : null;
    }
  },
});

/** The direction asked about: its status, its media types and the one whose schema is shown. */
function direction(
  op: CatalogOperation,
  input: { direction: 'request' | 'response'; status?: number | string | undefined; media_type?: string | undefined },
) {
  let status: string | null = null;
  let content: Content;
  let body_required: boolean | null = null;
  if (input.direction === 'request') {
    if (input.status !== undefined)
      throw new DomainError('invalid', 'status: applies with direction: response only; omit it for the request', {
        argument: 'status',
      });
    content = op.request?.content ?? {};
    body_required = op.request?.required ?? false;
  } else {
    const declared = Object.keys(op.responses);
    if (input.status === undefined)
      throw new DomainError(
        'invalid',
        `status: required with direction: response; ${op.key} declares ${declared.join(', ') || 'no response'}`,
        { argument: 'status' },
      );
    const asked = String(input.status).toUpperCase();
    // an exact status, else its class (2XX), else the document's default
    status =
      declared.find((s) => s.toUpperCase() === asked) ??
      declared.find((s) => /^\d$/.test(asked[0] ?? '') && s.toUpperCase() === `${asked[0]}XX`) ??
      declared.find((s) => s === 'default') ??
      null;
    if (status === null)
      throw new DomainError(
        'invalid',
        `status: ${op.key} declares no response ${String(input.status)}; it declares ${declared.join(', ') || 'none'}`,
        { argument: 'status' },
      );
    content = op.responses[status]!.content;
  }
  const media_types = Object.keys(content);
  let media_type: string | null = null;
  if (input.media_type !== undefined) {
    media_type = media_types.find((m) => m.toLowerCase() === input.media_type!.trim().toLowerCase()) ?? null;
    if (media_type === null)
      throw new DomainError(
        'invalid',
        `media_type: '${input.media_type}' is not declared here; declared: ${media_types.join(', ') || 'none'}`,
        { argument: 'media_type' },
      );
  } else if (media_types.length === 1) media_type = media_types[0]!;
  else if (media_types.length > 1)
    throw new DomainError(
      'invalid',
      `media_type: required, ${op.key} declares several here: ${media_types.join(', ')}`,
      { argument: 'media_type' },
    );
  return {
    direction: input.direction,
    status,
    media_types,
    media_type,
    body_required,
    schema: media_type ? (content[media_type] ?? null) : null,
  };
}
