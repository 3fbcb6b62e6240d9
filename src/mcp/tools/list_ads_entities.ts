import { z } from 'zod';
import type { Knex } from '../../infra/db.js';
import type { TargetCategory } from '../../projections/observed/ads-rows.js';
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
  targetCategorySchema,
  windowsOf,
  type CoveredProfile,
} from '../ads.js';
import { rowMutations, withMutations } from '../target-mutations.js';
import { readTool } from '../tool.js';
import { limitArgument } from '../window.js';

const TYPES = ['AdvertisingProfile', 'Campaign', 'AdGroup', 'Ad', 'Target'] as const;

/** The 30-day rollup (metrics30) as the rows state it. */
const metrics30Schema = z
  .object({
    cost: z.number().describe('major units of currency'),
    sales: z.number().describe('7-day attributed, major units of currency'),
    acos: z.number().nullable().describe('cost / sales, null when sales is 0'),
    roas: z.number().nullable().describe('sales / cost, null when cost is 0'),
    impressions: z.number().int(),
    clicks: z.number().int(),
    purchases: z.number().int().describe('7-day attributed'),
  })
  .describe('the trailing 30 profile-local days');

const decimalSchema = (what: string) =>
  z.string().nullable().describe(`${what}: a decimal string in major units of currency (e.g. "0.75"); null when unset`);
const state = z.string().describe('enabled, paused or archived (lower case, as the marketplace reports it)');
const localId = (what: string) => z.string().describe(`the local ${what} id`);

/** What every observed entity row carries (entityCommon, then the row's `mutations`). */
const entityCommonShape = {
  id: z.string().describe('the local id: with `type`, the mutation target'),
  account_id: z.string(),
  account_name: z.string().nullable(),
  advertising_profile_id: z.string().nullable().describe('the local advertising profile id'),
  provider_profile_id: z.number().describe("the marketplace's profile id"),
  marketplace_id: z.string().nullable(),
  currency: z.string().nullable().describe('the profile currency of every budget and bid'),
  data: z
    .record(z.string(), z.unknown())
    .describe('the native entity: provider keys, values and units (major) unchanged'),
};

const entitySchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('AdvertisingProfile'),
    id: z.string().describe('the local id: with `type`, the mutation target (create_campaign)'),
    account_id: entityCommonShape.account_id,
    account_name: z.string(),
    provider_profile_id: entityCommonShape.provider_profile_id,
    country_code: z.string(),
    currency: z.string().describe('the currency of every budget and bid under the profile'),
    marketplace_id: z.string(),
    time_zone: z.string(),
    advertiser_name: z.string().describe("the advertising account's name"),
    mutations: rowMutations.describe(
      'campaign creations: every queued, submitting and uncertain request plus the latest settled receipt of each attempted creation',
    ),
  }),
  z.object({
    type: z.literal('Campaign'),
    ...entityCommonShape,
    name: z.string(),
    state,
    targeting_type: z.string().nullable().describe('MANUAL or AUTO'),
    daily_budget: decimalSchema('the daily budget'),
    advertised_asins: z.number().int().describe('distinct ASINs the campaign advertises'),
    metrics30: metrics30Schema,
    mutations: rowMutations,
  }),
  z.object({
    type: z.literal('AdGroup'),
    ...entityCommonShape,
    name: z.string().nullable(),
    state,
    default_bid: decimalSchema('the default bid'),
    campaign_id: localId('campaign'),
    advertised_asins: z.number().int().describe('distinct ASINs the ad group advertises'),
    metrics30: metrics30Schema,
    mutations: rowMutations,
  }),
  z.object({
    type: z.literal('Ad'),
    ...entityCommonShape,
    // the product ads table has no currency column: absent on ad rows (spec 2.8 names it on every entity)
    currency: entityCommonShape.currency.optional(),
    state,
    asin: z.string().nullable(),
    sku: z.string().nullable(),
    campaign_id: localId('campaign'),
    ad_group_id: localId('ad group'),
    metrics30: z.null().describe('null: no per-ad report is synced'),
    mutations: rowMutations,
  }),
  z.object({
    type: z.literal('Target'),
    ...entityCommonShape,
    state,
    negative: z.boolean().describe('true for an exclusion (negative keyword or target)'),
    level: z.enum(['AD_GROUP', 'CAMPAIGN']).describe('where it sits; only exclusions sit at CAMPAIGN level'),
    target_type: targetCategorySchema,
    text: z.string().describe('the keyword, or the expression (asin="…", category="…", an auto bucket)'),
    match_type: z
      .string()
      .nullable()
      .describe('the match type of keywords (exact, phrase, broad); null for the others'),
    campaign_id: localId('campaign'),
    ad_group_id: z.string().nullable().describe('the local ad group id; null at campaign level'),
    bid: decimalSchema("the target's own bid").optional().describe('absent on exclusions'),
    metrics30: metrics30Schema.optional().describe('the trailing 30 profile-local days; absent on exclusions'),
    mutations: rowMutations,
  }),
]);

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
  output: z.object({
    rows: z.array(entitySchema),
    truncated: z.boolean().describe('more rows matched than `limit`'),
  }),
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
        rows.slice(0, input.limit).map((e) => ({ ...entityCommon(e, account), ...SPECIFIC[type](e) })),
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

function entityCommon(e: EntityRow, account: (id: string) => { account_id: string; account_name: string | null }) {
  const r = e.row;
  return {
    id: r.id as string,
    ...account(r.account_id as string),
    advertising_profile_id: r.profile_id as string | null,
    provider_profile_id: Number(r.provider_profile_id),
    marketplace_id: r.marketplace_id as string | null,
    currency: r.currency as string | null,
    data: r.data as Native,
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

// the entity tables' state column is never null
const lower = (v: unknown) => (v as string).toLowerCase();
type Native = Record<string, unknown>;
const text = (v: unknown) => v as string;
const nullableText = (v: unknown) => v as string | null;
// Campaign, AdGroup and Target rows always carry metrics and (the first two) advertised ASINs
const measured = ({ row, metrics }: EntityRow) => metrics30(metrics!, nullableText(row.currency));

const SPECIFIC = {
  Campaign: (e: EntityRow) => ({
    type: 'Campaign' as const,
    name: text(e.row.name),
    state: lower(e.row.state),
    targeting_type: nullableText(e.row.targeting_type),
    daily_budget: decimal(((e.row.data as Native).budget as Native | undefined)?.budget),
    advertised_asins: e.advertised_asins ?? 0,
    metrics30: measured(e),
  }),
  AdGroup: (e: EntityRow) => ({
    type: 'AdGroup' as const,
    name: nullableText(e.row.name),
    state: lower(e.row.state),
    default_bid: decimal((e.row.data as Native).defaultBid),
    campaign_id: text(e.row.campaign_id),
    advertised_asins: e.advertised_asins ?? 0,
    metrics30: measured(e),
  }),
  Ad: ({ row }: EntityRow) => ({
    type: 'Ad' as const,
    state: lower(row.state),
    asin: nullableText(row.asin),
    sku: nullableText(row.sku),
    campaign_id: text(row.campaign_id),
    ad_group_id: text(row.ad_group_id),
    metrics30: null,
  }),
  Target: (e: EntityRow) => ({
    type: 'Target' as const,
    state: lower(e.row.state),
    negative: e.row.negative as boolean,
    level: e.row.level as 'AD_GROUP' | 'CAMPAIGN',
    target_type: e.row.category as TargetCategory,
    text: text(e.row.text),
    match_type: nullableText(e.row.match_type),
    campaign_id: text(e.row.campaign_id),
    ad_group_id: nullableText(e.row.ad_group_id),
    // exclusions carry no bid and no metrics
    ...(e.row.negative ? {} : { bid: decimal((e.row.data as Native).bid), metrics30: measured(e) }),
  }),
} satisfies Record<EntityType, (e: EntityRow) => { type: EntityType }>;
