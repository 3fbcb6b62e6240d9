import type { AdsState } from '../ads/sp-state.js';
import type { ProfileAds } from '../ads/sp-generate.js';
import type { FictionalSeller } from '../seller.js';
import type { SellingData } from '../selling/data.js';
import type { LiveListing } from '../selling/listings-state.js';
import { DAY_MS, type SimOrder } from '../selling/orders-book.js';
import type { AccountStatus } from './selling-account.js';
import type { Competition } from './competition.js';
import type { HourCell } from './ads-stream.js';
import type { EventHub } from './hub.js';

// What events are built from: the simulator's own state, plus the little the market adds
// (competitors, the account's status, budget consumption, entity versions), and lookups that
// find the listing, order or campaign an event is about.

export interface EventSources {
  seed: number;
  seller: FictionalSeller;
  selling: SellingData;
  ads: AdsState;
  competition: Competition;
  hub: EventHub;
  now(): number;
  market: {
    accountStatus: AccountStatus;
    /** ids issued to the feeds, reports and queries that triggered notifications invent */
    issued: number;
    /** today's budget consumption per campaign, percent */
    budgetUsage: Map<string, { day: number; percent: number }>;
    /** orders of the last day the market has announced (and taken out of stock), with their purchase time */
    announced: Map<string, number>;
    /** changes seen per ads entity, for the entity datasets' `version` */
    versions: Map<string, number>;
  };
}

export interface ListingQuery {
  marketplaceId?: string;
  sku?: string;
  asin?: string;
}

/** The named listing, else the first in the marketplace (US by default) that `fits`. */
export function findListing(
  s: EventSources,
  q: ListingQuery,
  fits: (l: LiveListing) => boolean = () => true,
): LiveListing | undefined {
  const { listings } = s.selling;
  const marketplaceIds = q.marketplaceId ? [q.marketplaceId] : s.seller.participations.map((p) => p.marketplace.id);
  if (q.sku) {
    for (const id of marketplaceIds) {
      const found = listings.find(q.sku, id);
      if (found) return found;
    }
    return undefined;
  }
  for (const id of marketplaceIds)
    for (const listing of listings.catalog.listingsIn(id)) {
      const live = listings.live(listing);
      if (live.status !== 'DELETED' && (!q.asin || live.asin === q.asin) && fits(live)) return live;
    }
  return undefined;
}

/** The named order, else the latest placed by now (within a month) that `fits`. */
export function findOrder(
  s: EventSources,
  q: { orderId?: string; marketplaceId?: string },
  fits: (o: SimOrder) => boolean = () => true,
): SimOrder | undefined {
  if (q.orderId) return s.selling.orders.order(q.orderId);
  const now = s.now();
  const marketplaceIds = q.marketplaceId ? [q.marketplaceId] : s.seller.participations.map((p) => p.marketplace.id);
  for (let day = Math.floor(now / DAY_MS); day > Math.floor(now / DAY_MS) - 31; day--)
    for (const id of marketplaceIds) {
      const placed = s.selling.orders.ordersOn(day, id).filter((o) => o.purchasedAt <= now && fits(o));
      if (placed.length > 0) return placed[placed.length - 1];
    }
  return undefined;
}

/** Orders placed in [from, to) in one marketplace. */
export function ordersBetween(s: EventSources, marketplaceId: string, from: number, to: number): SimOrder[] {
  const orders: SimOrder[] = [];
  for (let day = Math.floor(from / DAY_MS); day <= Math.floor((to - 1) / DAY_MS); day++)
    orders.push(
      ...s.selling.orders.ordersOn(day, marketplaceId).filter((o) => o.purchasedAt >= from && o.purchasedAt < to),
    );
  return orders;
}

type Entity = Record<string, unknown>;
const values = (ads: ProfileAds, resource: keyof ProfileAds['entities']) => [
  ...(ads.entities[resource] as unknown as Map<string, Entity>).values(),
];

export function findProfile(s: EventSources, profileId?: string): ProfileAds | undefined {
  return s.ads.profile(profileId ?? String(s.seller.profiles[0]!.profileId));
}

/** The named campaign, else the profile's first enabled one. */
export function findCampaign(ads: ProfileAds, campaignId?: string): Entity | undefined {
  const campaigns = values(ads, 'campaigns');
  return campaignId
    ? campaigns.find((c) => c.campaignId === campaignId)
    : (campaigns.find((c) => c.state === 'ENABLED') ?? campaigns[0]);
}

/** The first ad group, ad and keyword (or target) of a campaign: where an hour's traffic is booked. */
export function hourCell(ads: ProfileAds, campaignId: string): HourCell | undefined {
  const adGroup = values(ads, 'adGroups').find((g) => g.campaignId === campaignId);
  if (!adGroup) return undefined;
  const inGroup = (e: Entity) => e.adGroupId === adGroup.adGroupId;
  const ad = values(ads, 'productAds').find(inGroup);
  const target = values(ads, 'keywords').find(inGroup) ?? values(ads, 'targets').find(inGroup);
  return ad && target ? { campaignId, adGroupId: String(adGroup.adGroupId), adId: String(ad.adId), target } : undefined;
}

/** An entity of `resource` under the campaign (or the campaign itself), by id or the first. */
export function findEntity(
  ads: ProfileAds,
  resource: keyof ProfileAds['entities'],
  idKey: string,
  campaignId: string,
  entityId?: string,
): Entity | undefined {
  return values(ads, resource).find((e) => (entityId ? e[idKey] === entityId : e.campaignId === campaignId));
}

/** The start of the last full UTC hour. */
export const lastHour = (now: number) => Math.floor(now / 3_600_000) * 3_600_000 - 3_600_000;
