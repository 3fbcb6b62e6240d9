import { z } from 'zod';
import { admitMutations } from '../../commands/admission/admit.js';
import { receiptViewSchema } from '../../commands/admission/receipts.js';
import { defaultProductType } from '../../domain/admission/rules.js';
import { listingUpdate } from '../../domain/mutation/payloads.js';
import { DomainError } from '../../domain/shared/errors.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { accountArgument, selectAccounts } from '../accounts.js';
import { admissionDeps, simulatedOutput, simulation } from '../admission.js';
import { listingBySku } from '../listing-by-sku.js';
import { viaOf } from '../auth.js';
import { defineTool } from '../tool.js';
import { listingId } from '../../domain/observation/ids.js';

// Spec 4.5: a listing's attribute patches as one immutable receipt (a Listing `update`), admitted
// like queue_mutations' so the same rules and records apply.

const patches = listingUpdate.shape.patches;

export const patchListing = defineTool({
  name: 'patch_listing',
  description:
    "Queues native Listings Items patches for one listing (by SKU) as one immutable mutation receipt, patches kept in order; a worker sends it. Use it for every attribute change: prices, price bounds, quantity, handling time. Offer patches to /attributes/purchasable_offer carry marketplace_id, currency and audience selectors; merge updates one pricing sub-attribute without resending the others. The receipt reads back at once (get_mutation, list_mutations); the marketplace's answer arrives later, once the worker has sent it: read the outcome then with get_mutation.",
  annotations: {
    title: 'Patch listing',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  input: {
    account: accountArgument,
    sku: z.string().trim().min(1).describe("the listing's SKU"),
    marketplace_id: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('required only when the SKU sells in several marketplaces'),
    product_type: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe(
        "defaults to PRODUCT when every patch targets purchasable_offer, else the listing's known product type, else PRODUCT",
      ),
    patches,
  },
  output: z.object({
    ...simulatedOutput,
    receipt: receiptViewSchema.describe(
      "the listing update's receipt (status queued, or blocked when the listing is blocked); read its outcome later with get_mutation",
    ),
  }),
  async handler(input, ctx) {
    const deps = admissionDeps(ctx);
    const accounts = await loadAccounts(ctx.db, ctx.userId);
    const account = selectAccounts(accounts, input.account, 'write')[0]!;
    const listing = await listingBySku(ctx.db, account, input.sku, input.marketplace_id);
    const productType = input.product_type ?? defaultProductType(input.patches, listing.product_type);
    const target = { type: 'Listing', id: listingId(account.id, listing.marketplace_id, listing.sku) };
    const outcome = await admitMutations(deps, {
      userId: ctx.userId,
      accounts,
      account,
      mutations: [{ target, action: 'update', payload: { productType, patches: input.patches } }],
      input: null,
      ...viaOf(ctx),
    });
    const result = outcome.results[0]!;
    if ('error' in result) {
      const { code, detail, ...extra } = result.error;
      throw new DomainError(code, ownArgument(detail), {
        ...extra,
        argument: typeof extra.argument === 'string' ? ownArgument(extra.argument) : undefined,
      });
    }
    return { ...simulation(ctx), receipt: result.receipt };
  },
});

/** An admission error's path as this tool's arguments name it: the request's payload.patches is `patches`. */
const ownArgument = (path: string): string =>
  path
    .replace(/^mutations\[0\]\./, '')
    .replace(/^payload\.productType\b/, 'product_type')
    .replace(/^payload(\.patches)?\b/, 'patches');
