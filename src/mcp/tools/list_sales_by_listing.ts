import { z } from 'zod';
import { DomainError } from '../../domain/shared/errors.js';
import { salesByListing } from '../../projections/observed/sales-queries.js';
import { accountArgument } from '../accounts.js';
import { marketplaceIdArgument } from '../marketplace-argument.js';
import { freshnessOf, marketplaceWindowSchema, salesFreshnessSchema, salesReach, withAccountNames } from '../sales.js';
import { readTool } from '../tool.js';
import { limitArgument, sinceArgument, untilArgument } from '../window.js';

// Spec 4.6: confirmed sales per (ASIN, SKU, marketplace) and account, best first.
export const listSalesByListing = readTool('list_sales_by_listing', 'Sales by listing', {
  description:
    "Confirmed sales (orders Shipped, Unshipped or PartiallyShipped; canceled and pending orders excluded; refunds not tracked) per listing: one row per account, marketplace, ASIN and SKU with the listing's current title (null when the listing was deleted), revenue (integer minor units of the row's currency), units and orders. order_by revenue (default; needs marketplace_id when the rows span several currencies) or units, descending. asin and sku match exactly. since/until are whole days in each marketplace's local time (default the trailing 30 days, at most 400). `total` counts every matching row before `limit`. No rows means no confirmed sales, not zero sales: check `freshness` (absent when the selling connection is not set up).",
  input: {
    since: sinceArgument,
    until: untilArgument,
    marketplace_id: marketplaceIdArgument,
    asin: z.string().trim().min(1).optional().describe('exact ASIN'),
    sku: z.string().trim().min(1).optional().describe('exact SKU'),
    order_by: z.enum(['revenue', 'units']).default('revenue').describe('revenue (default) or units, descending'),
    limit: limitArgument(),
    account: accountArgument,
  },
  output: z.object({
    windows: z.array(marketplaceWindowSchema).describe('the local days read, per marketplace covered'),
    rows: z.array(
      z.object({
        account_id: z.string(),
        account_name: z.string(),
        marketplace_id: z.string(),
        asin: z.string().nullable(),
        sku: z.string().nullable(),
        title: z.string().nullable().describe("the listing's current title; null when the listing was deleted"),
        currency: z.string().nullable(),
        revenue: z.number().int().describe('line prices, integer minor units of currency'),
        units: z.number().int().describe('units sold'),
        orders: z.number().int().describe('orders (one line each) naming the listing'),
      }),
    ),
    total: z.number().int().describe('every matching row before `limit`'),
    freshness: salesFreshnessSchema,
  }),
  async handler(input, ctx) {
    const reach = await salesReach(ctx, input);
    // two reads of their own: side by side, each on its connection
    const [page, freshness] = await Promise.all([salesByListing(ctx.db, reach.scopes, input), freshnessOf(ctx, reach)]);
    if (input.order_by === 'revenue' && input.marketplace_id === undefined && page.currencies.length > 1) {
      throw new DomainError(
        'marketplace_required',
        `the matching sales are in ${page.currencies.length} currencies (${page.currencies.join(', ')}), and revenue in one currency cannot be ranked against another: pass marketplace_id, or order_by units`,
        { currencies: page.currencies },
      );
    }
    return {
      windows: reach.windows,
      rows: withAccountNames(reach, page.rows),
      total: page.total,
      ...freshness,
    };
  },
});
