import { z } from 'zod';
import type { Knex } from '../../infra/db.js';
import { minorDigits } from '../../projections/observed/economics-support.js';
import {
  observedEntities,
  type EntityRow,
  type EntityType,
  type Totals,
} from '../../projections/observed/ads-queries.js';
import { accountArgument } from '../accounts.js';
import {
  accountIdsOf,
  accountNames,
  campaignIdArgument,
  coveredProfiles,
  windowsOf,
  type CoveredProfile,
} from '../ads.js';
import { withMutations } from '../target-mutations.js';
import { readTool } from '../tool.js';
import { limitArgument } from '../window.js';

const TYPES = ['AdvertisingProfile', 'Campaign', 'AdGroup', 'Ad', 'Target'] as const;

// Spec 2.7, 2.8, 4.6: the observed advertising entities as mutation targets: stable local
// `type`/`id`, the profile (local and provider ids, currency), the native entity in `data`
// (provider keys, major units), and the trailing 30 days in `metrics30` (major units too, as
// automation contexts state them).
export const listAdsEntities = readTool('list_ads_entities', 'List ads entities', {
  description:
    'Observed Sponsored Products entities of one target_type (AdvertisingProfile, Campaign, AdGroup, Ad, Target), each with its explicit mutation target `type` and stable local `id`, local advertising_profile_id, provider_profile_id, currency, and `data`: the native entity with provider keys and MAJOR units unchanged (unlike the other tools, bids and budgets here are decimal strings in major units). Target covers keywords, auto buckets, product and category targets and exclusions (`negative: true`, with `level` AD_GROUP or CAMPAIGN, local campaign_id always, local ad_group_id null at campaign level). `metrics30` is the trailing 30 profile-local days: cost and sales (7-day attributed) in major units, acos (null when sales is 0), roas (null when cost is 0), impressions, clicks, purchases; null for ads (no per-ad report is synced) and absent on exclusions. campaign_id (local) narrows to one campaign.',
  input: {
    target_type: z.enum(TYPES).describe('the entity type: AdvertisingProfile, Campaign, AdGroup, Ad or Target'),
    campaign_id: campaignIdArgument,
    account: accountArgument,
    limit: limitArgument(),
  },
  async handler(input, ctx) {
    const covered = await coveredProfiles(ctx, { account: input.account });
    if (input.target_type === 'AdvertisingProfile') {
      const { rows, truncated } = await profiles(ctx.db, covered, input.campaign_id, input.limit);
      return { rows: await withMutations(ctx.db, 'AdvertisingProfile', rows), truncated };
    }
    const rows = await observedEntities(ctx.db, input.target_type, {
      accountIds: accountIdsOf(covered),
      windows: windowsOf(covered),
      campaignId: input.campaign_id,
      limit: input.limit,
    });
    const account = accountNames(covered);
    const type: EntityType = input.target_type;
    return {
      rows: await withMutations(
        ctx.db,
        type,
        rows.slice(0, input.limit).map((e) => ({ ...entityCommon(type, e, account), ...SPECIFIC[type](e) })),
      ),
      truncated: rows.length > input.limit,
    };
  },
});

async function profiles(db: Knex, covered: CoveredProfile[], campaignId: string | undefined, limit: number) {
  // with a campaign: the one profile that holds it
  const holder = campaignId
    ? (
        await observedEntities(db, 'Campaign', {
          accountIds: accountIdsOf(covered),
          windows: windowsOf(covered),
          campaignId,
          limit: 1,
        })
      )[0]?.row
    : undefined;
  const kept = campaignId
    ? covered.filter(
        (c) =>
          holder && c.account.id === holder.account_id && c.profile.provider_profile_id === holder.provider_profile_id,
      )
    : covered;
  return {
    rows: kept.slice(0, limit).map((c) => ({
      type: 'AdvertisingProfile' as const,
      id: c.profile.id,
      account_id: c.account.id,
      account_name: c.account.name,
      provider_profile_id: Number(c.profile.provider_profile_id),
      country_code: c.profile.country_code,
      currency: c.profile.currency,
      marketplace_id: c.profile.marketplace_id,
      time_zone: c.profile.timezone,
      advertiser_name: c.profile.account_name,
    })),
    truncated: kept.length > limit,
  };
}

function entityCommon(
  type: EntityType,
  e: EntityRow,
  account: (id: string) => { account_id: string; account_name: string | null },
) {
  const r = e.row;
  return {
    type,
    id: r.id as string,
    ...account(r.account_id as string),
    advertising_profile_id: r.profile_id as string | null,
    provider_profile_id: Number(r.provider_profile_id),
    marketplace_id: r.marketplace_id as string | null,
    currency: r.currency as string | null,
    data: r.data,
  };
}

/** A decimal string in major units, as the spec states budgets and bids ("50.0", "0.75"). */
const decimal = (v: unknown): string | null =>
  typeof v === 'number' ? (Number.isInteger(v) ? v.toFixed(1) : String(v)) : null;

/** The 30-day rollup in major units (spec 2.8). */
function metrics30(t: Totals, currency: string | null) {
  const major = (minor: number) => (currency ? minor / 10 ** minorDigits(currency) : minor);
  const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 10_000) / 10_000);
  return {
    cost: major(t.cost),
    sales: major(t.sales),
    acos: ratio(t.cost, t.sales),
    roas: ratio(t.sales, t.cost),
    impressions: t.impressions,
    clicks: t.clicks,
    purchases: t.purchases,
  };
}

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : null);
type Native = Record<string, unknown>;

const SPECIFIC: Readonly<Record<EntityType, (e: EntityRow) => Record<string, unknown>>> = {
  Campaign: ({ row, metrics, advertised_asins }) => ({
    name: row.name,
    state: lower(row.state),
    targeting_type: row.targeting_type,
    daily_budget: decimal(((row.data as Native).budget as Native | undefined)?.budget),
    advertised_asins,
    metrics30: metrics && metrics30(metrics, row.currency as string | null),
  }),
  AdGroup: ({ row, metrics, advertised_asins }) => ({
    name: row.name,
    state: lower(row.state),
    default_bid: decimal((row.data as Native).defaultBid),
    campaign_id: row.campaign_id,
    advertised_asins,
    metrics30: metrics && metrics30(metrics, row.currency as string | null),
  }),
  Ad: ({ row }) => ({
    state: lower(row.state),
    asin: row.asin,
    sku: row.sku,
    campaign_id: row.campaign_id,
    ad_group_id: row.ad_group_id,
    metrics30: null,
  }),
  Target: ({ row, metrics }) => ({
    state: lower(row.state),
    negative: row.negative,
    level: row.level,
    target_type: row.category,
    text: row.text,
    match_type: row.match_type,
    campaign_id: row.campaign_id,
    ad_group_id: row.ad_group_id,
    // exclusions carry no bid and no metrics
    ...(row.negative
      ? {}
      : {
          bid: decimal((row.data as Native).bid),
          metrics30: metrics && metrics30(metrics, row.currency as string | null),
        }),
  }),
};
