import { z } from 'zod';
import { executeDispatchControlCommand } from '../../commands/dispatch-control/execute.js';
import { DomainError } from '../../domain/shared/errors.js';
import { accountArgument, accountForWrite } from '../accounts.js';
import { simulatedOutput, simulation } from '../admission.js';
import { toolErrorSchema } from '../errors.js';
import { listingBySku } from '../listing-by-sku.js';
import { marketplaceIdArgument } from '../marketplace-argument.js';
import { defineTool, type ToolContext } from '../tool.js';
import { listingId } from '../../domain/observation/ids.js';
import { recordingStore } from '../admission.js';

// Spec 3.5, 4.5: block or allow automated changes per listing. Each row is independent and says
// whether it was `saved`; blocking withholds the listing's queued and future requests (and its
// advertising requests) from the marketplace; allowing never replays what was blocked.

export const MAX_UPDATE_ROWS = 50;

const row = z.strictObject({
  sku: z.string().trim().min(1).describe("the listing's SKU"),
  marketplace_id: marketplaceIdArgument.describe('required only when the SKU sells in several marketplaces'),
  blocked: z
    .boolean()
    .optional()
    .describe(
      'true stops sending the listing’s changes and its advertising changes; false allows them again (nothing blocked is replayed)',
    ),
});

type Row = z.output<typeof row>;

export const updateListing = defineTool({
  name: 'update_listing',
  description:
    'Blocks or allows automated changes per listing (by SKU). Rows are independent; each reports `saved`. A blocked listing keeps recording requests but none is sent to the marketplace (its advertising requests neither); unblocking allows new ones and never releases those blocked earlier. At most 50 rows. Use patch_listing for attribute changes.',
  // destructive: a block withholds the listing's queued requests for good (an unblock never releases them)
  annotations: {
    title: 'Update listing block flags',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  input: {
    account: accountArgument,
    updates: z.array(row).describe(`rows of { sku, blocked, marketplace_id? }; at most ${MAX_UPDATE_ROWS}`),
  },
  output: z.object({
    ...simulatedOutput,
    account_id: z.string().describe('the account written'),
    updates: z
      .array(
        z.union([
          z.object({
            sku: z.string(),
            marketplace_id: z.string(),
            listing_id: z.string().describe('the local listing id'),
            blocked: z.boolean().describe('the flag now set'),
            saved: z.literal(true),
          }),
          z.object({
            sku: z.string(),
            marketplace_id: z.string().nullable().describe('as the row gave it; null when it gave none'),
            saved: z.literal(false),
            error: toolErrorSchema.describe('why the row was not saved'),
          }),
        ]),
      )
      .describe('one per row, in order: saved, or not saved with the error'),
  }),
  async handler(input, ctx) {
    if (input.updates.length === 0)
      throw new DomainError('no_updates', 'updates: no rows; pass at least one { sku, blocked }', {
        argument: 'updates',
      });
    if (input.updates.length > MAX_UPDATE_ROWS) {
      throw new DomainError(
        'too_many_updates',
        `updates: ${input.updates.length} rows; at most ${MAX_UPDATE_ROWS} per call`,
        { argument: 'updates', max: MAX_UPDATE_ROWS },
      );
    }
    const account = await accountForWrite(ctx, input.account);
    const results = [];
    for (const [index, update] of input.updates.entries()) results.push(await saveRow(ctx, account, update, index));
    return { ...simulation(ctx), account_id: account.id, updates: results };
  },
});

async function saveRow(
  ctx: ToolContext,
  account: Awaited<ReturnType<typeof accountForWrite>>,
  update: Row,
  index: number,
) {
  const where = { sku: update.sku, marketplace_id: update.marketplace_id ?? null };
  try {
    if (update.blocked === undefined)
      throw new DomainError('no_fields', `updates[${index}]: nothing to change; pass blocked: true or false`, {
        argument: `updates[${index}]`,
      });
    const listing = await listingBySku(ctx.db, account, update.sku, update.marketplace_id);
    const id = listingId(account.id, listing.marketplace_id, listing.sku);
    const saved = {
      sku: listing.sku,
      marketplace_id: listing.marketplace_id,
      listing_id: id,
      blocked: update.blocked,
      saved: true as const,
    };
    if (ctx.endpoint === 'demo') return saved; // the demo records nothing
    try {
      const command = {
        type: 'SetListingBlock' as const,
        account_id: account.id,
        listing_id: id,
        blocked: update.blocked,
        at: ctx.now().toISOString(),
      };
      await executeDispatchControlCommand(
        {
          store: recordingStore(ctx),
          metadata: { actor: { kind: 'user', id: ctx.userId }, correlation_id: ctx.requestId },
          maxAttempts: 3,
        },
        command,
      );
    } catch (err) {
      if (err instanceof DomainError && err.code === 'conflict')
        throw new DomainError('conflict', `updates[${index}]: listing ${update.sku} changed while saving; retry`);
      throw err;
    }
    return saved;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return {
      ...where,
      saved: false as const,
      error: { code: err.code, detail: err.detail.replace(/^sku:/, `updates[${index}].sku:`) },
    };
  }
}
