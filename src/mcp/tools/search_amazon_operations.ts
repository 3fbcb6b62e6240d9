import { z } from 'zod';
import { selectedRevision } from '../../catalog/discovery.js';
import { METHODS } from '../../catalog/operation.js';
import { searchOperations } from '../../catalog/queries.js';
import { PROVIDERS } from '../../catalog/reviewed.js';
import { limitArgument } from '../window.js';
import { readTool } from '../tool.js';

// Spec 4.9: the operation catalog searched. Every query word must appear (in any order, as part
// of a word) in the operation's key, method, path, summary or tags; rows in key order, paged by
// offset (docs/decisions/106-catalog-discovery.md).
export const searchAmazonOperations = readTool('search_amazon_operations', 'Search marketplace API operations', {
  description:
    'Searches the operation catalog: every operation of the selling API (`sp_api`) and the advertising API (`ads_api`) documents, at the selected `catalog_revision`. Every word of `query` must match (case-insensitive, part of a word is enough) the qualified key, method, path, summary or tags; narrow with `provider`, `family`, `method`, `deprecated`, `executable` (true: the reviewed operations the service runs: live reads, report requests, queued writes). Rows in key order: `operation` (the qualified key `<provider>:<family>:<version>:<operationId>` for get_amazon_operation), method, path, one-line summary, executable, deprecated; `families` counts every match per family; page with `offset` = `next_offset` (null on the last page).',
  input: {
    query: z
      .string()
      .max(500)
      .optional()
      .describe('words that must all match, e.g. "campaign list" or "reports create"; omit to list every operation'),
    provider: z.enum(PROVIDERS).optional().describe('sp_api (selling API) or ads_api (advertising API)'),
    family: z
      .string()
      .max(200)
      .optional()
      .describe('one API family, e.g. listings-items, reports, sponsored-products (see `families`)'),
    method: z.enum(METHODS).optional().describe('the HTTP method'),
    deprecated: z.boolean().optional().describe('true: only deprecated operations; false: only current ones'),
    executable: z
      .boolean()
      .optional()
      .describe('true: only operations the service runs (reviewed); false: only generic, described ones'),
    limit: limitArgument(25, 100),
    offset: z.number().int().min(0).max(1_000_000).default(0).describe('rows to skip: the previous `next_offset`'),
  },
  output: z.object({
    catalog_revision: z
      .string()
      .describe('the catalog revision searched; pin it in read_amazon_operation, request_report, queue_mutations'),
    operations: z.array(
      z.object({
        operation: z.string().describe('qualified key `<provider>:<family>:<version>:<operationId>`'),
        provider: z.enum(PROVIDERS),
        family: z.string(),
        method: z.enum(METHODS),
        path: z.string(),
        summary: z.string().nullable().describe('one line; null when the document gives none'),
        executable: z.boolean().describe('reviewed and run by the service; false for every generic operation'),
        deprecated: z.boolean(),
      }),
    ),
    total: z.number().int().describe('how many operations match before paging'),
    families: z
      .array(z.object({ provider: z.enum(PROVIDERS), family: z.string(), count: z.number().int() }))
      .describe('every family with matches, and how many'),
    family_count: z.number().int().describe('how many families have matches'),
    next_offset: z.number().int().nullable().describe('the `offset` of the next page; null on the last'),
  }),
  async handler(input, ctx) {
    const revision = await selectedRevision(ctx.db);
    const words = (input.query ?? '').split(/\s+/).filter((w) => w.length > 0);
    const { rows, total, families } = await searchOperations(
      ctx.db,
      revision,
      {
        words,
        ...(input.provider ? { provider: input.provider } : {}),
        ...(input.family ? { family: input.family.trim() } : {}),
        ...(input.method ? { method: input.method } : {}),
        ...(input.deprecated !== undefined ? { deprecated: input.deprecated } : {}),
        ...(input.executable !== undefined ? { executable: input.executable } : {}),
      },
      { limit: input.limit, offset: input.offset },
    );
    return {
      catalog_revision: revision,
      operations: rows.map(({ key, ...row }) => ({ operation: key, ...row })),
      total,
      families,
      family_count: families.length,
      next_offset: input.offset + rows.length < total ? input.offset + rows.length : null,
    };
  },
});
