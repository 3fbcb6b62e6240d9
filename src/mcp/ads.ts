import { z } from 'zod';
import { DomainError } from '../domain/shared/errors.js';
import { UUID_PATTERN } from '../domain/shared/ids.js';
import { marketplaceById } from '../domain/shared/marketplaces.js';
import type { AccountView, ProfileView } from '../projections/accounts/queries.js';
import { TARGET_CATEGORIES } from '../projections/observed/ads-rows.js';
import {
  profileFreshness,
  targetRollups,
  type ProfileWindow,
  type TargetRollup,
  type Totals,
} from '../projections/observed/ads-queries.js';
import { accountArgument, accountsForRead } from './accounts.js';
import { marketplaceIdArgument } from './marketplace-argument.js';
import type { ToolContext } from './tool.js';
import { dayWindow, limitArgument, sinceArgument, untilArgument, type DayWindow, type WindowedRead } from './window.js';

// What the ads read tools share (spec 4.2, 4.6): the profiles a call covers, each with its own
// window of profile-local report dates, the freshness of what was synced, and acos.

/** A target's category: keyword, auto, product or product_category. */
export const targetCategorySchema = z.enum(TARGET_CATEGORIES);

export const stateArgument = z
  .enum(['enabled', 'paused', 'archived'])
  .optional()
  .describe('keep only rows in this state');

/** An advertising profile a read covers, with its account. */
export interface CoveredProfile {
  account: AccountView;
  profile: ProfileView;
  window: DayWindow;
}

/**
 * The advertising profiles of the accounts a read covers (narrowed to `marketplace_id`), each
 * with the window cut on its own time zone. The window is checked even when no profile is
 * covered, so a bad window is `invalid_window` whatever is connected.
 */
export async function coveredProfiles(ctx: ToolContext, input: WindowedRead): Promise<CoveredProfile[]> {
  const wanted = input.marketplace_id?.trim();
  if (wanted !== undefined && !marketplaceById(wanted)) {
    throw new DomainError(
      'invalid',
      `marketplace_id: '${input.marketplace_id}' is not a marketplace id (v_marketplaces lists them, e.g. ATVPDKIKX0DER for amazon.com)`,
      { argument: 'marketplace_id' },
    );
  }
  const now = ctx.now();
  dayWindow(input.since, input.until, 'UTC', now);
  const accounts = await accountsForRead(ctx, input.account);
  return accounts.flatMap((account) =>
    (account.ads?.profiles ?? [])
      .filter((p) => wanted === undefined || p.marketplace_id === wanted)
      .map((profile) => ({ account, profile, window: dayWindow(input.since, input.until, profile.timezone, now) })),
  );
}

export const profileKey = (accountId: string, providerProfileId: string) => `${accountId}/${providerProfileId}`;

export const windowsOf = (covered: readonly CoveredProfile[]): ProfileWindow[] =>
  covered.map((c) => ({
    account_id: c.account.id,
    provider_profile_id: c.profile.provider_profile_id,
    first: c.window.first,
    last: c.window.last,
  }));

export const accountIdsOf = (covered: readonly CoveredProfile[]): string[] => [
  ...new Set(covered.map((c) => c.account.id)),
];

/** What a rollup query reads: the covered accounts, each profile over its own window. */
export const rollupScope = (covered: readonly CoveredProfile[]) => ({
  accountIds: accountIdsOf(covered),
  windows: windowsOf(covered),
});

/** The `freshness` entries of the ads reads (freshnessOf), one per covered profile. */
export const adsFreshnessSchema = z
  .array(
    z.object({
      account_id: z.string(),
      advertising_profile_id: z.string().describe('the local advertising profile id'),
      marketplace_id: z.string(),
      time_zone: z.string().describe("the profile's IANA time zone, whose report dates the window holds"),
      since: z.iso.date().describe('first profile-local report date read, inclusive'),
      until: z.iso.date().describe('last profile-local report date read, inclusive'),
      latest_report_date: z.iso
        .date()
        .nullable()
        .describe('the latest report date read completely; null when none was'),
      metrics_synced_at: z.iso.datetime().nullable().describe('when that report data was last read'),
      entities_synced_at: z.iso.datetime().nullable().describe('when the campaigns were last read completely'),
    }),
  )
  .describe(
    'per covered profile: the window applied and what was synced (zeros with an old or null latest_report_date mean unsynced data)',
  );

/**
 * Per covered profile: the window applied and what was synced. Zeros with a null or old
 * `latest_report_date` mean unsynced data, not zero spend.
 */
export async function freshnessOf(
  ctx: ToolContext,
  covered: readonly CoveredProfile[],
  metrics: 'campaigns' | 'targeting',
): Promise<z.input<typeof adsFreshnessSchema>> {
  const synced = await profileFreshness(ctx.db, accountIdsOf(covered), metrics);
  return covered.map((c) => ({
    account_id: c.account.id,
    advertising_profile_id: c.profile.id,
    marketplace_id: c.profile.marketplace_id,
    time_zone: c.profile.timezone,
    since: c.window.first,
    until: c.window.last,
    ...(synced.get(profileKey(c.account.id, c.profile.provider_profile_id)) ?? {
      latest_report_date: null,
      metrics_synced_at: null,
      entities_synced_at: null,
    }),
  }));
}

/** cost / sales, null when sales is zero (rounded to 4 decimals). */
export const acos = (t: Pick<Totals, 'cost' | 'sales'>): number | null =>
  t.sales === 0 ? null : Math.round((t.cost / t.sales) * 10_000) / 10_000;

/** The figures of a row (`figures`) as the output schemas state them. */
export const figuresSchema = z.object({
  impressions: z.number().int(),
  clicks: z.number().int(),
  cost: z.number().int().describe('spend, integer minor units of currency'),
  sales: z.number().int().describe('7-day attributed sales, integer minor units of currency'),
  purchases: z.number().int().describe('7-day attributed purchases'),
  acos: z.number().nullable().describe('cost / sales, null when sales is 0'),
});

/** The figures of a row as the tools state them: minor units, 7-day attributed sales, acos. */
export const figures = (t: Totals): z.input<typeof figuresSchema> => ({
  impressions: t.impressions,
  clicks: t.clicks,
  cost: t.cost,
  sales: t.sales,
  purchases: t.purchases,
  acos: acos(t),
});

/** The account's id and name for a row, by account id. */
export const accountNames = (covered: readonly CoveredProfile[]) => {
  const names = new Map(covered.map((c) => [c.account.id, c.account.name]));
  return (accountId: string) => ({ account_id: accountId, account_name: names.get(accountId) ?? null });
};

export const SALES_NOTE =
  'sales is 7-day attributed; the latest ~14 days are still maturing (they read low and acos high, not a trend). Money is integer minor units of the row currency, never summed across currencies.';

export const campaignIdArgument = z
  .string()
  .regex(UUID_PATTERN, 'must be a local campaign id (a uuid from list_campaigns)')
  .transform((v) => v.toLowerCase())
  .optional()
  .describe('local campaign id (list_campaigns campaign_id)');

/** The arguments of list_keywords and list_targets, around the one filter that tells them apart. */
export const targetListInput = <Filter extends z.ZodRawShape>(filter: Filter) => ({
  campaign_id: campaignIdArgument,
  state: stateArgument,
  ...filter,
  marketplace_id: marketplaceIdArgument,
  since: sinceArgument,
  until: untilArgument,
  order_by: z.enum(['cost', 'sales', 'clicks']).default('cost').describe('descending; cost (default), sales or clicks'),
  limit: limitArgument(),
  account: accountArgument,
});

/** A row of targetRows after the fields its tool names it by (`own`); `extend` it with those. */
export const targetRowSchema = z.object({
  account_id: z.string(),
  account_name: z.string().nullable(),
  campaign_id: z.string().describe('the local campaign id'),
  campaign_name: z.string().nullable(),
  ad_group_id: z.string().describe('the local ad group id'),
  ad_group_name: z.string().nullable(),
  state: z.string().describe('enabled, paused or archived (lower case, as the marketplace reports it)'),
  bid: z
    .number()
    .int()
    .nullable()
    .describe("integer minor units of currency: the target's own bid, else its ad group's default"),
  advertising_profile_id: z.string().nullable().describe('the local advertising profile id'),
  marketplace_id: z.string().nullable(),
  currency: z.string().nullable(),
  ...figuresSchema.shape,
});

/** The answer of list_keywords and list_targets, whose rows carry `own` fields first. */
export const targetListSchema = <Own extends z.ZodRawShape>(own: Own) =>
  z.object({
    rows: z.array(z.object({ ...own, ...targetRowSchema.shape })),
    freshness: adsFreshnessSchema,
  });

/** Positive keywords and targeting clauses (`categories` narrows them) with their window's figures,
 * each row led by the fields `own` names it by (list_keywords and list_targets differ only there). */
export async function targetRows<Own extends object>(
  ctx: ToolContext,
  input: WindowedRead & {
    campaign_id?: string | undefined;
    state?: string | undefined;
    match_type?: string | undefined;
    order_by: 'cost' | 'sales' | 'clicks';
    limit: number;
  },
  categories: readonly string[] | undefined,
  own: (row: TargetRollup) => Own,
) {
  const covered = await coveredProfiles(ctx, input);
  const rows = await targetRollups(ctx.db, {
    ...rollupScope(covered),
    campaignId: input.campaign_id,
    state: input.state,
    categories,
    matchType: input.match_type,
    orderBy: input.order_by,
    limit: input.limit,
  });
  const account = accountNames(covered);
  return {
    rows: rows.map((r) => ({
      ...own(r),
      ...account(r.account_id),
      campaign_id: r.campaign_id,
      campaign_name: r.campaign_name,
      ad_group_id: r.ad_group_id,
      ad_group_name: r.ad_group_name,
      state: r.state,
      // a target without a bid of its own bids its ad group's default
      bid: r.bid ?? r.default_bid,
      advertising_profile_id: r.profile_id,
      marketplace_id: r.marketplace_id,
      currency: r.currency,
      ...figures(r),
    })),
    freshness: await freshnessOf(ctx, covered, 'targeting'),
  };
}
