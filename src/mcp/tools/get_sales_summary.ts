import { z } from 'zod';
import { salesTotals } from '../../projections/observed/sales-queries.js';
import {
  freshnessOf,
  marketplaceWindowSchema,
  previousReach,
  salesFreshnessSchema,
  salesReach,
  withAccountNames,
  type SalesReach,
} from '../sales.js';
import { SALES_APP_URI } from '../resources/apps.js';
import { summaryArguments } from '../summary-arguments.js';
import { readTool, type ToolContext } from '../tool.js';

// Spec 4.6: confirmed sales per account and marketplace over whole local days, optionally
// beside the window of the same length just before.

const count = (what: string) => z.number().int().describe(what);

/** One window's sales: the windows per marketplace and a row per account and marketplace. */
const summarySchema = z.object({
  windows: z.array(marketplaceWindowSchema).describe('the local days read, per marketplace covered'),
  rows: z
    .array(
      z.object({
        account_id: z.string(),
        account_name: z.string(),
        marketplace_id: z.string(),
        currency: z.string().nullable(),
        revenue: count('line prices (tax and shipping excluded), integer minor units of currency'),
        units: count('units sold'),
        orders: count('confirmed orders whose items were read'),
        order_lines: count('order lines'),
      }),
    )
    .describe('one row per account and marketplace with confirmed sales; none: no confirmed sales, not zero sales'),
});
export const getSalesSummary = readTool('get_sales_summary', 'Sales summary', {
  description:
    "Confirmed sales (orders Shipped, Unshipped or PartiallyShipped; canceled and pending orders excluded; refunds not tracked) per account and marketplace: revenue (line prices, tax and shipping excluded, in integer minor units of the row's currency, never summed across currencies), units, orders and order lines. since/until are whole days in each marketplace's local time (default the trailing 30 days, at most 400); `windows` states them per marketplace. No rows means no confirmed sales, not zero sales: check `freshness` (no `freshness` means the selling connection is not set up). compare_to_previous adds `previous` for the window of the same length just before, biased low for the current window's pending and not yet read orders.",
  input: summaryArguments('also report the window of the same length just before, as `previous`'),
  output: summarySchema.extend({
    previous: summarySchema
      .optional()
      .describe(
        "the window of the same length just before (compare_to_previous), biased low for the current window's pending and unread orders",
      ),
    freshness: salesFreshnessSchema,
  }),
  app: SALES_APP_URI,
  async handler(input, ctx) {
    const reach = await salesReach(ctx, input);
    return {
      ...(await summaryOf(ctx, reach)),
      ...(input.compare_to_previous ? { previous: await summaryOf(ctx, previousReach(reach)) } : {}),
      ...(await freshnessOf(ctx, reach)),
    };
  },
});

async function summaryOf(ctx: ToolContext, reach: SalesReach) {
  return { windows: reach.windows, rows: withAccountNames(reach, await salesTotals(ctx.db, reach.scopes)) };
}
