import type { Knex } from 'knex';
import { addDays, localDate } from '../../domain/shared/calendar.js';
import type { TargetType } from '../../domain/mutation/payloads.js';
import type { AccountView, ProfileView } from '../../projections/accounts/queries.js';
import {
  adsOfListing,
  entityRowsOf,
  observedEntitiesQuery,
  observedEntityIdsQuery,
  type EntityRow,
  type EntityType,
  type ProfileWindow,
  type Totals,
} from '../../projections/observed/ads-queries.js';
import {
  receiptsByTarget,
  receiptsForTargets,
  receiptsForTargetsQuery,
  type Receipt,
  type ReceiptRow,
} from '../../projections/mutations/queries.js';
import { readTogether } from '../../infra/db.js';
import { decimalString, majorUnits } from './money.js';
import { receiptInContext } from './receipts.js';

// The advertising entities as contexts show them (spec 2.7, 2.8): each a mutation target by its
// explicit `type` and local `id`, with its profile, currency, native `data`, its receipts and the
// trailing 30 profile-local days in major units. Read from the ads read model for a set of
// campaigns at once (the four types in one statement, their receipts in another), then shaped here.

type Json = Record<string, unknown>;

/** The observed entities of some campaigns, with their receipts. */
export interface CampaignEntities {
  campaigns: EntityRow[];
  adGroups: EntityRow[];
  ads: EntityRow[];
  /** positive targets and exclusions */
  targets: EntityRow[];
  receipts: Map<string, Receipt[]>;
}

const ENTITY_TYPES: readonly EntityType[] = ['Campaign', 'AdGroup', 'Ad', 'Target'];

/** More rows than any account has under a handful of campaigns: the read is not paged. */
const UNBOUNDED = 1_000_000;

/** Each profile's trailing 30 local days, today included (the `metrics30` window). */
export function trailing30(account: AccountView, profiles: readonly ProfileView[], now: Date): ProfileWindow[] {
  return profiles.map((p) => {
    const last = localDate(now, p.timezone);
    const first = addDays(last, -29);
    return { account_id: account.id, provider_profile_id: p.provider_profile_id, first, last };
  });
}

/** The entities of these campaigns (local ids) in these profiles, and every receipt on them. */
export async function entitiesOfCampaigns(
  db: Knex,
  account: AccountView,
  profiles: readonly ProfileView[],
  campaignIds: readonly string[],
  now: Date,
): Promise<CampaignEntities> {
  const none: CampaignEntities = { campaigns: [], adGroups: [], ads: [], targets: [], receipts: new Map() };
  if (campaignIds.length === 0 || profiles.length === 0) return none;
  const filter = {
    accountIds: [account.id],
    windows: trailing30(account, profiles, now),
    campaignIds,
    limit: UNBOUNDED,
  };
  // the four types and the receipts on what they hold, in one statement
  const read: Record<string, unknown[]> = await readTogether(db, () =>
    Object.fromEntries(
      ENTITY_TYPES.flatMap((type) => [
        [type, observedEntitiesQuery(db, type, filter)],
        [`receipts ${type}`, receiptsForTargetsQuery(db, type, observedEntityIdsQuery(db, type, filter))],
      ]),
    ),
  );
  const [campaigns = [], adGroups = [], ads = [], targets = []] = ENTITY_TYPES.map((type) =>
    entityRowsOf(type, read[type] ?? []),
  );
  const receipts = new Map<string, Receipt[]>();
  for (const type of ENTITY_TYPES)
    for (const [id, list] of receiptsByTarget((read[`receipts ${type}`] ?? []) as ReceiptRow[])) receipts.set(id, list);
  return { campaigns, adGroups, ads, targets, receipts };
}

/** A product ad advertising a listing: where it sits. */
export interface ListingAd {
  id: string;
  campaign_id: string;
  ad_group_id: string;
}

/**
 * Where a context's advertising entities come from: the read models as of now (live and dry
 * runs), or the account's log as of a past moment (backtests).
 */
export interface AdsEntities {
  /** the product ads advertising the listing: its SKU, or its ASIN on an ad naming no SKU */
  ofListing(listing: { marketplace_id: string; sku: string; asin: string | null }): Promise<ListingAd[]>;
  /** the entities of these campaigns (local ids) in these profiles, and every receipt on them */
  ofCampaigns(profiles: readonly ProfileView[], campaignIds: readonly string[]): Promise<CampaignEntities>;
}

export const readModelAds = (db: Knex, account: AccountView, now: Date): AdsEntities => ({
  ofListing: (l) => adsOfListing(db, { account_id: account.id, ...l }),
  ofCampaigns: (profiles, ids) => entitiesOfCampaigns(db, account, profiles, ids, now),
});

/** The 30-day rollup in major units (spec 2.8); ratios from the minor units, which give the same quotient. */
function metrics30(t: Totals | null, currency: string) {
  const m = t ?? { impressions: 0, clicks: 0, cost: 0, sales: 0, purchases: 0 };
  const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 10_000) / 10_000);
  return {
    cost: majorUnits(m.cost, currency),
    sales: majorUnits(m.sales, currency),
    acos: ratio(m.cost, m.sales),
    roas: ratio(m.sales, m.cost),
    impressions: m.impressions,
    clicks: m.clicks,
    orders: m.purchases,
  };
}

/** What every entity carries: its identity as a target, its profile, currency, native data and receipts. */
function common(type: TargetType, id: string | null, profile: ProfileView, data: unknown, receipts: Receipt[]) {
  return {
    type,
    id,
    profileId: profile.id,
    providerProfileId: Number(profile.provider_profile_id),
    currency: profile.currency,
    data,
    mutations: receipts.map(receiptInContext),
  };
}

/** Shapes entity rows of one account's profiles. */
export function entityShapes(profiles: readonly ProfileView[], receipts: Map<string, Receipt[]>) {
  const byProvider = new Map(profiles.map((p) => [p.provider_profile_id, p]));
  const profileOf = (row: Json) => byProvider.get(String(row.provider_profile_id))!;
  const base = (type: TargetType, e: EntityRow) =>
    common(type, e.row.id as string, profileOf(e.row), e.row.data, receipts.get(e.row.id as string) ?? []);
  const data = (e: EntityRow) => (e.row.data ?? {}) as Json;
  /** with the 30-day rollup, in the profile's currency */
  const measured = (type: TargetType, e: EntityRow) => ({
    ...base(type, e),
    metrics30: metrics30(e.metrics, profileOf(e.row).currency),
  });
  /** where an ad or a target sits, and its state */
  const placed = (e: EntityRow) => ({
    campaignId: e.row.campaign_id as string,
    adGroupId: (e.row.ad_group_id as string | null) ?? null,
    state: e.row.state as string,
  });
  return {
    campaign: (e: EntityRow) => ({
      ...measured('Campaign', e),
      name: e.row.name as string,
      state: e.row.state as string,
      dailyBudget: decimalString((data(e).budget as Json | undefined)?.budget),
      asinCount: e.advertised_asins ?? 0,
    }),
    adGroup: (e: EntityRow) => ({
      ...measured('AdGroup', e),
      campaignId: e.row.campaign_id as string,
      name: e.row.name as string,
      state: e.row.state as string,
      defaultBid: decimalString(data(e).defaultBid),
      asinCount: e.advertised_asins ?? 0,
    }),
    ad: (e: EntityRow) => ({
      ...base('Ad', e),
      metrics30: null,
      ...placed(e),
      asin: (e.row.asin as string | null) ?? null,
      sku: (e.row.sku as string | null) ?? null,
    }),
    target: (e: EntityRow) => ({
      ...measured('Target', e),
      ...placed(e),
      bid: decimalString(data(e).bid),
      category: e.row.category as string,
      text: e.row.text as string,
      matchType: typeof e.row.match_type === 'string' ? e.row.match_type.toUpperCase() : null,
    }),
    negativeTarget: (e: EntityRow) => ({
      ...base('Target', e),
      level: e.row.level as string,
      ...placed(e),
      category: e.row.category as string,
      text: e.row.text as string,
    }),
  };
}

/** A campaign the ads sync has not read (spec 2.8: its local id is null, or the one our creation gave it). */
export function unsyncedCampaign(profile: ProfileView, providerId: string, id: string | null, receipts: Receipt[]) {
  return {
    ...common('Campaign', id, profile, { campaignId: providerId }, receipts),
    metrics30: metrics30(null, profile.currency),
    name: null,
    state: null,
    dailyBudget: null,
    asinCount: 0,
  };
}

/** The children lists (spec 2.8) of entities, exclusions apart from positive targets. */
export function childLists(
  shape: ReturnType<typeof entityShapes>,
  e: Pick<CampaignEntities, 'adGroups' | 'ads' | 'targets'>,
) {
  return {
    adGroups: e.adGroups.map(shape.adGroup),
    ads: e.ads.map(shape.ad),
    targets: e.targets.filter((t) => !t.row.negative).map(shape.target),
    negativeTargets: e.targets.filter((t) => t.row.negative).map(shape.negativeTarget),
  };
}

/** The account's advertising profiles in a marketplace (spec 2.7), each with its campaign-creation receipts. */
export async function advertisingProfiles(db: Knex, profiles: readonly ProfileView[]) {
  return profilesWithReceipts(
    profiles,
    await receiptsForTargets(
      db,
      'AdvertisingProfile',
      profiles.map((p) => p.id),
    ),
  );
}

/** Profiles as contexts list them, each with its receipts from `receipts` (by profile id). */
export const profilesWithReceipts = (profiles: readonly ProfileView[], receipts: ReadonlyMap<string, Receipt[]>) =>
  profilesInContext(profiles, (id) => (receipts.get(id) ?? []).map(receiptInContext));

/** Profiles as contexts list them, with the receipts `mutationsOf` gives each. */
export function profilesInContext(profiles: readonly ProfileView[], mutationsOf: (id: string) => unknown[]) {
  return profiles.map((p) => ({
    type: 'AdvertisingProfile',
    id: p.id,
    providerProfileId: Number(p.provider_profile_id),
    country: p.country_code,
    currency: p.currency,
    mutations: mutationsOf(p.id),
  }));
}
