import { profileTotals, type Totals } from '../../projections/observed/ads-queries.js';
import { z } from 'zod';
import {
  adsFreshnessSchema,
  coveredProfiles,
  figures,
  figuresSchema,
  freshnessOf,
  profileKey,
  SALES_NOTE,
  windowsOf,
  type CoveredProfile,
} from '../ads.js';
import { summaryArguments } from '../summary-arguments.js';
import { readTool } from '../tool.js';
import { previousWindow } from '../window.js';

const ZERO: Totals = { impressions: 0, clicks: 0, cost: 0, sales: 0, purchases: 0 };

const day = (what: string) => z.iso.date().describe(what);

// Spec 4.6: Sponsored Products totals, one row per account and advertising profile (a profile
// is one marketplace and one currency), over profile-local report dates.
export const getAdsSummary = readTool('get_ads_summary', 'Ads summary', {
  description: `Sponsored Products totals per account and advertising profile (one marketplace, one currency each): impressions, clicks, cost, sales, purchases and acos (cost / sales, null when sales is 0) over whole profile-local report dates (default the trailing 30 days ending today, at most 400). ${SALES_NOTE} compare_to_previous adds a \`previous\` block over the same number of days just before. A profile with nothing synced shows zeros: check \`freshness\` (latest report date read per profile) before reading zeros as no spend.`,
  input: summaryArguments('add a `previous` block over the window of the same length just before'),
  output: z.object({
    rows: z.array(
      z.object({
        account_id: z.string(),
        account_name: z.string(),
        advertising_profile_id: z.string().describe('the local advertising profile id'),
        provider_profile_id: z.string().describe("the marketplace's profile id"),
        marketplace_id: z.string(),
        country_code: z.string(),
        currency: z.string().describe('the currency of cost and sales'),
        since: day('first profile-local report date, inclusive'),
        until: day('last profile-local report date, inclusive'),
        ...figuresSchema.shape,
        previous: z
          .object({
            since: day('first report date of the window just before, inclusive'),
            until: day('last report date of the window just before, inclusive'),
            ...figuresSchema.shape,
          })
          .optional()
          .describe('the same number of days just before (compare_to_previous)'),
      }),
    ),
    freshness: adsFreshnessSchema,
  }),
  async handler(input, ctx) {
    const covered = await coveredProfiles(ctx, input);
    const current = await profileTotals(ctx.db, windowsOf(covered));
    const earlier = input.compare_to_previous ? covered.map((c) => ({ ...c, window: previousWindow(c.window) })) : null;
    const previous = earlier ? await profileTotals(ctx.db, windowsOf(earlier)) : null;
    const totalsOf = (totals: Map<string, Totals>, c: CoveredProfile) =>
      figures(totals.get(profileKey(c.account.id, c.profile.provider_profile_id)) ?? ZERO);
    return {
      rows: covered.map((c, i) => ({
        account_id: c.account.id,
        account_name: c.account.name,
        advertising_profile_id: c.profile.id,
        provider_profile_id: c.profile.provider_profile_id,
        marketplace_id: c.profile.marketplace_id,
        country_code: c.profile.country_code,
        currency: c.profile.currency,
        since: c.window.first,
        until: c.window.last,
        ...totalsOf(current, c),
        ...(previous && earlier
          ? { previous: { since: earlier[i]!.window.first, until: earlier[i]!.window.last, ...totalsOf(previous, c) } }
          : {}),
      })),
      freshness: await freshnessOf(ctx, covered, 'campaigns'),
    };
  },
});
