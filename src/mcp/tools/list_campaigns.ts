import { z } from 'zod';
import { campaignRollups } from '../../projections/observed/ads-queries.js';
import { accountArgument } from '../accounts.js';
import {
  accountNames,
  adsFreshnessSchema,
  coveredProfiles,
  figures,
  figuresSchema,
  freshnessOf,
  rollupScope,
  SALES_NOTE,
  stateArgument,
} from '../ads.js';
import { marketplaceIdArgument } from '../marketplace-argument.js';
import { readTool } from '../tool.js';
import { limitArgument, sinceArgument, untilArgument } from '../window.js';

// Spec 4.6: Sponsored Products campaigns with their rollup over the window.
export const listCampaigns = readTool('list_campaigns', 'List campaigns', {
  description: `Sponsored Products campaigns with their figures over whole profile-local report dates (default the trailing 30 days ending today): budget_amount, cost, sales (integer minor units of the row currency), impressions, clicks, purchases, acos (cost / sales, null when sales is 0). ${SALES_NOTE} A campaign without metrics shows zeros; zeros with a stale \`freshness\` mean unsynced data. name is a case-insensitive substring; asin keeps campaigns advertising that ASIN, with the whole campaign's figures (per-ASIN spend is exact only for single-product campaigns). order_by cost (default) or sales, descending; across currencies each row is ranked within its own currency and the ranks interleave.`,
  input: {
    state: stateArgument,
    name: z.string().min(1).optional().describe('case-insensitive substring of the campaign name'),
    asin: z
      .string()
      .min(1)
      .optional()
      .describe('keep campaigns with a product ad for this ASIN (figures stay campaign-level)'),
    marketplace_id: marketplaceIdArgument,
    since: sinceArgument,
    until: untilArgument,
    order_by: z.enum(['cost', 'sales']).default('cost').describe('descending; cost (default) or sales'),
    limit: limitArgument(),
    account: accountArgument,
  },
  output: z.object({
    rows: z.array(
      z.object({
        account_id: z.string(),
        account_name: z.string().nullable(),
        campaign_id: z.string().describe('the local campaign id (campaign_id of list_keywords, list_targets)'),
        provider_campaign_id: z.string(),
        name: z.string(),
        state: z.string().describe('enabled, paused or archived (lower case, as the marketplace reports it)'),
        targeting_type: z.string().nullable().describe('MANUAL or AUTO'),
        budget_amount: z.number().int().nullable().describe('the budget, integer minor units of currency'),
        budget_type: z.string().nullable().describe('e.g. DAILY'),
        advertised_asins: z.number().int().describe('distinct ASINs the campaign advertises'),
        advertising_profile_id: z.string().nullable().describe('the local advertising profile id'),
        marketplace_id: z.string().nullable(),
        currency: z.string().nullable(),
        ...figuresSchema.shape,
      }),
    ),
    freshness: adsFreshnessSchema,
  }),
  async handler(input, ctx) {
    const covered = await coveredProfiles(ctx, input);
    const rows = await campaignRollups(ctx.db, {
      ...rollupScope(covered),
      state: input.state,
      name: input.name,
      asin: input.asin?.trim(),
      orderBy: input.order_by,
      limit: input.limit,
    });
    const account = accountNames(covered);
    return {
      rows: rows.map((r) => ({
        ...account(r.account_id),
        campaign_id: r.id,
        provider_campaign_id: r.provider_id,
        name: r.name,
        state: r.state,
        targeting_type: r.targeting_type,
        budget_amount: r.budget_amount,
        budget_type: r.budget_type,
        advertised_asins: r.advertised_asins,
        advertising_profile_id: r.profile_id,
        marketplace_id: r.marketplace_id,
        currency: r.currency,
        ...figures(r),
      })),
      freshness: await freshnessOf(ctx, covered, 'campaigns'),
    };
  },
});
