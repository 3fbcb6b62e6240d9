import { isDeepStrictEqual } from 'node:util';
import type { Knex } from 'knex';
import { withheld } from '../../commands/dispatch-control/execute.js';
import { identitiesOf } from '../../domain/event/identities.js';
import { adsEntityId, listingId } from '../../domain/observation/ids.js';
import { marketplaceById } from '../../domain/shared/marketplaces.js';
import { arr, obj, type Json } from '../../domain/shared/json.js';
import type { EventStore } from '../../eventstore/port.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { latestOf, type LatestRow } from '../../projections/events/queries.js';
import {
  listingsMentioned,
  type ListingMention,
  type ListingRecord,
} from '../../projections/observed/listings-search.js';
import { dealRowOf, reportedAt } from '../../projections/observed/deals-queries.js';
import { businessUnitsOf } from '../../projections/observed/sales-queries.js';
import { receiptsByTarget, type CreatedForListing, type ReceiptRow } from '../../projections/mutations/queries.js';
import type { ListingAd } from './ads.js';
import { childLists, entityShapes, profilesWithReceipts, readModelAds, type AdsEntities } from './ads.js';
import { profileIdsIn, profilesIn } from './profiles.js';
import { dealsShown, type Deals } from './deals.js';
import {
  listingKey,
  OFFER_NOTIFICATIONS,
  readListingLookups,
  STOCK_NOTIFICATIONS,
  type ListingLookups,
  type ListingsTogether,
} from './listing-lookups.js';
import { majorUnits } from './money.js';
import { receiptInContext } from './receipts.js';

// The Listing scope (spec 2.6): one context per listing of the account the event reached (by SKU,
// else ASIN, in the marketplace the payload names; a region-wide FBA event names several), built
// from the listings read model with money in major units, the advertising entities linked to the
// listing, its deals, its receipts and the account's advertising profiles in its marketplace.

/** What the listing row alone doesn't say; read elsewhere by the builder. */
export interface ListingExtras {
  blocked: boolean;
  b2bSales30d: number;
  /** the seller's own shipping on the latest offer notification, major units; null when none carried it */
  ownShipping: number | null;
  notifications: Record<string, unknown>;
  deals: Deals;
}

const FAMILIES = ['new', 'used', 'collectible', 'refurbished', 'club'];

/** The listing's own fields (spec 2.6) from its read-model row: money from minor to major units. */
export function listingFields(account_id: string, r: ListingRecord, extras: ListingExtras) {
  const marketplace = marketplaceById(r.marketplace_id);
  const currency = r.currency ?? marketplace?.currency ?? 'USD';
  const money = (minor: string | number | null) => majorUnits(minor, currency);
  const fba = r.fulfillment_channel === 'FBA' || (r.fulfillment_channel === null && r.fba_inventory != null);
  // null until reported, never empty: an empty list says nothing the handler can use
  const statuses = Array.isArray(r.statuses) && r.statuses.length > 0 ? r.statuses : null;
  const has = (s: string) => (statuses === null ? null : statuses.includes(s));
  const family = r.condition?.toLowerCase() ?? null;
  return {
    type: 'Listing',
    id: listingId(account_id, r.marketplace_id, r.sku),
    asin: r.asin,
    sku: r.sku,
    title: r.title,
    currencyCode: currency,
    marketplace: { id: r.marketplace_id, timeZone: marketplace?.timeZone ?? 'UTC' },
    price: money(r.price),
    quantity: fba ? null : r.quantity,
    floor: money(r.floor),
    ceiling: money(r.ceiling),
    b2bPrice: money(r.b2b_price),
    b2bSales30d: extras.b2bSales30d,
    condition: family !== null && FAMILIES.includes(family) ? family : null,
    conditionType: r.condition_type,
    fulfillmentChannel: fba ? 'Amazon' : 'Merchant',
    handlingTime: r.handling_time,
    restockDate: r.restock_date,
    shippingGroup: fba ? null : r.shipping_group,
    shippingCost: fba ? 0 : extras.ownShipping,
    statuses,
    buyable: has('BUYABLE'),
    discoverable: has('DISCOVERABLE'),
    deleted: has('DELETED'),
    blocked: extras.blocked,
    productType: r.product_type,
    data: {
      fba: fba ? { inventory: r.fba_inventory ?? null } : null,
      listings_item: r.data.listings_item ?? null,
      notifications: extras.notifications,
    },
    // no FBA inventory or fulfillment-centre report is synced yet
    fbaReport: null,
    fcReport: null,
    ...extras.deals,
  };
}

/** The seller's own offer's shipping amount in an offer notification; null when it has no offer of ours. */
export function ownShipping(message: unknown, sellerId: string): number | null {
  const payload = obj(obj(message)?.Payload);
  const body = obj(payload?.AnyOfferChangedNotification) ?? obj(payload?.B2BAnyOfferChangedNotification);
  const mine = arr(body?.Offers)
    .map(obj)
    .find((o) => o?.SellerId === sellerId);
  const amount = obj(mine?.Shipping)?.Amount;
  const n = typeof amount === 'string' ? Number(amount) : amount;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

export interface ListingRun {
  db: Knex;
  /** where block flags are read; null (the demo) has none */
  store: EventStore | null;
  account: AccountView;
  streamType: string;
  event: Json;
  now: Date;
}

/** What the event names of listings: SKU or ASIN, in a marketplace when it says which. */
export const mentionsOf = (run: Pick<ListingRun, 'streamType' | 'event'>): ListingMention[] =>
  identitiesOf(run.streamType, run.event).map((i) => ({ sku: i.sku, asin: i.asin, marketplace_id: i.marketplace_id }));

/**
 * Whether the event reaches a listing whose row was read already: what listingsReached finds of
 * it, named by SKU, else by ASIN, in the marketplace the mention names or in any (the row is the
 * account's, so its marketplace is one of the account's listing scopes).
 */
export const reaches = (
  run: Pick<ListingRun, 'streamType' | 'event'>,
  r: Pick<ListingRecord, 'marketplace_id' | 'sku' | 'asin'>,
): boolean =>
  mentionsOf(run).some(
    (m) =>
      (m.marketplace_id === null || m.marketplace_id === r.marketplace_id) &&
      (m.sku !== null ? m.sku === r.sku : m.asin !== null && m.asin === r.asin),
  );

/** The account's listings the event reached, as their read-model rows. */
export async function listingsReached(run: Pick<ListingRun, 'db' | 'account' | 'streamType' | 'event'>) {
  return listingsMentioned(run.db, run.account.id, mentionsOf(run));
}

/**
 * What a Listing context reads beside the listing's row. A live or dry run reads the read models
 * (readModelReads); a backtest reads the account's log folded up to the event's time.
 */
export interface ListingReads {
  /** the latest stock and offer notification of each type naming the listing, by type */
  recorded(r: ListingRecord): Promise<Map<string, unknown>>;
  blocked(listing_id: string): Promise<boolean>;
  b2bSales30d(r: ListingRecord): Promise<number>;
  deals(r: ListingRecord): Promise<Deals>;
  /** the listing's receipts, as contexts list them */
  receipts(r: ListingRecord, listing_id: string): Promise<Array<Record<string, unknown>>>;
  /** the advertising entities linked to the listing */
  ads(r: ListingRecord, listing_id: string): Promise<Record<string, unknown>>;
  /** the account's advertising profiles in the listing's marketplace */
  profiles(r: ListingRecord): Promise<unknown[]>;
}

/**
 * The read models' answers, as of now. A listing's own lookups are one statement
 * (listing-lookups.ts), or none when a live wave read them with its other listings' (`together`).
 */
export function readModelReads(run: ListingRun, together?: Promise<ListingsTogether>): ListingReads {
  const { db, account, now } = run;
  const lookups = new Map<string, Promise<ListingLookups>>();
  const read = async (r: ListingRecord) => {
    // the wave's read failed: this listing's alone says why, or answers
    const mine = (await together?.catch(() => undefined))?.get(listingKey(r));
    return mine && isDeepStrictEqual(mine.profileIds, profileIdsIn(account, r.marketplace_id))
      ? mine
      : readListingLookups(db, account, now, r);
  };
  const lookupsOf = (r: ListingRecord) => {
    const key = listingKey(r);
    if (!lookups.has(key)) lookups.set(key, read(r));
    return lookups.get(key)!;
  };
  return {
    recorded: async (r) => latestOf((await lookupsOf(r)).recorded as LatestRow[]),
    blocked: async (id) => (run.store ? withheld(run.store, 'Listing', id) : false),
    b2bSales30d: async (r) => businessUnitsOf((await lookupsOf(r)).units),
    deals: async (r) => {
      const { dealReports, deals } = await lookupsOf(r);
      const reported_at = reportedAt(dealReports);
      return dealsShown({ reported_at, deals: deals.map(dealRowOf) }, r.asin ? [r.asin] : []);
    },
    receipts: async (r, id) =>
      (receiptsByTarget((await lookupsOf(r)).receipts as ReceiptRow[]).get(id) ?? []).map(receiptInContext),
    ads: (r) =>
      linkedAds(
        { ...readModelAds(db, account, now), ofListing: async () => (await lookupsOf(r)).ads as ListingAd[] },
        account,
        r,
        lookupsOf(r).then((l) => l.created as CreatedForListing[]),
      ),
    profiles: async (r) =>
      profilesWithReceipts(
        profilesIn(account, r.marketplace_id),
        receiptsByTarget((await lookupsOf(r)).profileReceipts as ReceiptRow[]),
      ),
  };
}

/** The context of one reached listing. */
export async function listingContext(
  run: ListingRun,
  r: ListingRecord,
  reads: ListingReads = readModelReads(run),
): Promise<Json> {
  const { account } = run;
  const id = listingId(account.id, r.marketplace_id, r.sku);
  // side by side: a live run waits on each round trip
  const [recorded, blocked, b2bSales30d, deals, receipts, ads, profiles] = await Promise.all([
    reads.recorded(r),
    reads.blocked(id),
    reads.b2bSales30d(r),
    reads.deals(r),
    reads.receipts(r, id),
    reads.ads(r, id),
    reads.profiles(r),
  ]);
  const sellerId = account.selling?.provider_id ?? '';
  const offerEvents = [
    ...(OFFER_NOTIFICATIONS.includes(run.streamType) ? [run.event] : []),
    ...OFFER_NOTIFICATIONS.map((t) => recorded.get(t)),
  ];
  const listing = listingFields(account.id, r, {
    blocked,
    b2bSales30d,
    ownShipping: offerEvents.map((e) => (e ? ownShipping(e, sellerId) : null)).find((s) => s !== null) ?? null,
    notifications: Object.fromEntries(
      STOCK_NOTIFICATIONS.flatMap((t) => (recorded.has(t) ? [[t, recorded.get(t)]] : [])),
    ),
    deals,
  });
  return {
    listing: { ...listing, ...ads, mutations: receipts },
    advertisingProfiles: profiles,
  };
}

/**
 * The advertising entities linked to the listing (spec 2.6, 2.8): the ads advertising it, their
 * ad groups and campaigns, the targets and exclusions of those, and what its own automation runs
 * created (once the ads sync has read it), even before an ad links them.
 */
export async function linkedAds(
  source: AdsEntities,
  account: AccountView,
  r: ListingRecord,
  /** what its runs created: read beside its other small lookups */
  createdRead: Promise<readonly CreatedForListing[]>,
) {
  const profiles = profilesIn(account, r.marketplace_id);
  const [ads, created] = await Promise.all([source.ofListing(r), createdRead]);
  const createdIds = new Set(created.map((c) => c.created.id));
  const campaignIds = new Set([
    ...ads.map((a) => a.campaign_id),
    ...created.flatMap(({ created: c, provider: p }) =>
      c.type === 'Campaign'
        ? [c.id]
        : p.campaignId && p.profileId
          ? [adsEntityId('campaign', account.id, p.profileId, p.campaignId)]
          : [],
    ),
  ]);
  const adGroupIds = new Set([
    ...ads.map((a) => a.ad_group_id),
    ...created.filter((c) => c.created.type === 'AdGroup').map((c) => c.created.id),
  ]);
  const adIds = new Set(ads.map((a) => a.id));
  const linkedCampaigns = new Set(ads.map((a) => a.campaign_id));
  const e = await source.ofCampaigns(profiles, [...campaignIds]);
  const shape = entityShapes(profiles, e.receipts);
  const lists = childLists(shape, {
    adGroups: e.adGroups.filter((g) => adGroupIds.has(g.row.id as string)),
    ads: e.ads.filter((a) => adIds.has(a.row.id as string) || createdIds.has(a.row.id as string)),
    targets: e.targets.filter(
      (t) =>
        createdIds.has(t.row.id as string) ||
        adGroupIds.has(t.row.ad_group_id as string) ||
        (t.row.level === 'CAMPAIGN' && linkedCampaigns.has(t.row.campaign_id as string)),
    ),
  });
  return {
    campaigns: e.campaigns.map(shape.campaign),
    ...lists,
    keywords: lists.targets.filter((t) => t.category === 'keyword'),
  };
}
