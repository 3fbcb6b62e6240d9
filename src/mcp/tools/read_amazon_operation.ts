import { z } from 'zod';
import { readOperation } from '../../catalog/live-read/execute.js';
import { LIVE_READ_TARGET_TYPES } from '../../catalog/live-read/target.js';
import { DomainError } from '../../domain/shared/errors.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { defineTool } from '../tool.js';

// Spec 4.9: one page of a reviewed live read, executed now against the marketplace with the
// target's own connection; nothing is stored. Not on demo (spec 4.1).

export const readAmazonOperation = defineTool({
  name: 'read_amazon_operation',
  description:
    "Reads one page of a reviewed live read (search_amazon_operations with executable: true) from the marketplace now, with the target's own connection: pin the catalog_revision you discovered it at, name a target you own ({ type, id }: SellingPartner or Advertiser = an account id; Inventory = '<account id>:<marketplace id>'; AmazonResource = '<account id>:<marketplace id>:<ASIN>'; Listing = a list_listings id; AdvertisingProfile = a profile id), and give the operation's native query or body parameters (seller, marketplace, profile, SKU and ASIN come from the target). Follow next_cursor with cursor, repeating operation, catalog_revision and target and leaving parameters out. At most 30 seconds and 64 KiB per page; the answer is the provider's, unchanged and not stored. Writes, reports and restricted data are unavailable.",
  // reads the marketplace (open world), changes nothing
  annotations: {
    title: 'Live read of a catalog operation',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  input: {
    operation: z
      .string()
      .min(1)
      .max(300)
      .describe('the qualified operation key <provider>:<family>:<version>:<operationId>'),
    catalog_revision: z.string().min(1).max(200).describe('the catalog revision you discovered the operation at'),
    target: z
      .strictObject({
        type: z.enum(LIVE_READ_TARGET_TYPES).describe("the operation's target type"),
        id: z.string().trim().min(1).max(200).describe('the target id (see the description for each type)'),
      })
      .describe('what the read is about; it must be one of your own'),
    parameters: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("the operation's native query parameters or request body properties; omit on a continuation"),
    cursor: z.string().min(1).max(8_000).optional().describe('next_cursor of the previous page'),
  },
  output: z.object({
    operation: z.string(),
    catalog_revision: z.string(),
    target: z.object({ type: z.string(), id: z.string() }),
    scope: z
      .object({
        account_id: z.string(),
        seller_id: z.string().nullable(),
        marketplace_id: z.string().nullable(),
        profile_id: z.string().nullable(),
      })
      .describe('what the target fixed of the call'),
    status: z.number().int().describe("the provider's HTTP status"),
    result: z.unknown().describe("the provider's answer as sent: native keys and units"),
    next_cursor: z.string().nullable().describe('the sealed continuation, valid 15 minutes; null on the last page'),
    read_at: z.iso.datetime(),
  }),
  async handler(input, ctx) {
    if (!ctx.liveReads)
      throw new DomainError('unavailable', 'this service has no marketplace to read live; retry later');
    return readOperation(ctx.db, ctx.liveReads, {
      userId: ctx.userId,
      accounts: await loadAccounts(ctx.db, ctx.userId),
      operation: input.operation,
      catalog_revision: input.catalog_revision,
      target: input.target,
      parameters: input.parameters,
      cursor: input.cursor,
      now: ctx.now(),
    });
  },
});
