import { z } from 'zod';
import { SP_RESOURCES, type SpResource } from '../../clients/ads-sp-types.js';
import type { ProfileAds } from '../ads/sp-generate.js';
import { fnSkuOf } from '../selling/listings.js';
import type { FinishedJob } from '../reports/jobs.js';
import type { LiveListing } from '../selling/listings-state.js';
import { budgetUsage, CHANGE_TYPE, entityChange, hourFigures, spConversion, spTraffic } from './ads-stream.js';
import {
  accountIdOf,
  accountStatusChanged,
  dataKioskQueryProcessingFinished,
  detailPageTrafficEvent,
  feedProcessingFinished,
  reportProcessingFinished,
  type AccountStatus,
} from './selling-account.js';
import { fbaInventoryAvailabilityChange } from './selling-inventory.js';
import {
  brandedItemContentChange,
  listingIssuesChange,
  listingStatusChange,
  mfnQuantityChange,
} from './selling-listings.js';
import { anyOfferChanged, b2bAnyOfferChanged, pricingHealth } from './selling-offers.js';
import {
  fbaOutboundShipmentStatus,
  fulfillmentOrderStatus,
  itemSalesEventChange,
  orderChange,
} from './selling-orders.js';
import {
  findCampaign,
  findEntity,
  findListing,
  findOrder,
  findProfile,
  hourCell,
  lastHour,
  ordersBetween,
  type EventSources,
} from './sources.js';
import type { SimOrder } from '../selling/orders-book.js';
import type { EventType, SellingType } from './types.js';

// One event of each type, raised from the simulator's state: what POST /_sim/events calls,
// and the consequences the market, the listing patches and the SP v3 changes share.

/** What the event is about, as POST /_sim/events takes it: every key optional (a raiser says what it lacks). */
export const eventTarget = z
  .object({
    profileId: z.string(),
    marketplaceId: z.string(),
    sku: z.string(),
    asin: z.string(),
    orderId: z.string(),
    campaignId: z.string(),
    /** the ad group, ad, keyword or target of an entity change */
    entityId: z.string(),
    /** ACCOUNT_STATUS_CHANGED: the new status (default: the other of NORMAL / AT_RISK) */
    status: z.enum(['NORMAL', 'AT_RISK', 'DEACTIVATED'] satisfies AccountStatus[]),
  })
  .partial();
export type EventTarget = z.infer<typeof eventTarget>;

/** Raises the event, or says what it could not find to raise it about. */
type Raise = (s: EventSources, t: EventTarget) => string | undefined;

const iso = (s: EventSources) => new Date(s.now()).toISOString();
const sellerOf = (s: EventSources) => s.seller.merchantId;

/** Only the seller's jobs notify: the vendor has no subscriptions here. */
export function jobFinished(s: EventSources, job: FinishedJob): void {
  if (job.owner !== 'seller') return;
  const sellerId = sellerOf(s);
  if (job.api === 'reports')
    s.hub.selling('REPORT_PROCESSING_FINISHED', sellerId, reportProcessingFinished(sellerId, job));
  else s.hub.selling('DATA_KIOSK_QUERY_PROCESSING_FINISHED', sellerId, dataKioskQueryProcessingFinished(sellerId, job));
}

/** Offer notifications after a price moved; `buyBox` tells whether we held it before and after. */
export function raiseOfferChange(
  s: EventSources,
  l: LiveListing,
  changeType: 'External' | 'Internal',
  buyBox: { before: boolean; after: boolean },
): void {
  s.hub.selling('ANY_OFFER_CHANGED', sellerOf(s), anyOfferChanged(sellerOf(s), l, s.competition, iso(s), changeType));
  if (l.b2bPrice !== null)
    s.hub.selling('B2B_ANY_OFFER_CHANGED', sellerOf(s), b2bAnyOfferChanged(sellerOf(s), l, s.competition, iso(s)));
  if (buyBox.before && !buyBox.after)
    s.hub.selling('PRICING_HEALTH', sellerOf(s), pricingHealth(sellerOf(s), l, s.competition, iso(s)));
}

export function raiseFbaInventory(s: EventSources, l: LiveListing): void {
  const payload = fbaInventoryAvailabilityChange(sellerOf(s), l, fnSkuOf(l), s.selling.stock.quantities(l));
  s.hub.selling('FBA_INVENTORY_AVAILABILITY_CHANGES', sellerOf(s), payload);
}

/** An SP v3 entity as it is after a change, on its entity dataset. */
export function raiseEntityChange(
  s: EventSources,
  ads: ProfileAds,
  resource: SpResource,
  entity: Record<string, unknown>,
): void {
  const key = `${ads.profileId}/${resource}/${String(entity[SP_RESOURCES[resource].idKey])}`;
  const version = (s.market.versions.get(key) ?? 0) + 1;
  s.market.versions.set(key, version);
  const message = entityChange(sellerOf(s), ads, resource, entity, version, iso(s));
  s.hub.stream(CHANGE_TYPE[resource], ads.profileId, message);
}

/** Today's consumption of the campaign's budget rises by `points`; crossing a 5 % step is announced. */
export function raiseBudgetUsage(
  s: EventSources,
  ads: ProfileAds,
  campaign: Record<string, unknown>,
  points: number,
): void {
  const day = Math.floor(s.now() / 86_400_000);
  const id = String(campaign.campaignId);
  const seen = s.market.budgetUsage.get(id);
  const before = seen?.day === day ? seen.percent : 0;
  const percent = Math.min(100, Math.round((before + points) * 100) / 100);
  s.market.budgetUsage.set(id, { day, percent });
  if (Math.floor(percent / 5) > Math.floor(before / 5))
    s.hub.stream('BUDGET_USAGE', ads.profileId, budgetUsage(sellerOf(s), ads, campaign, percent, iso(s)));
}

function hourOf(s: EventSources, ads: ProfileAds, campaignId: string) {
  const cell = hourCell(ads, campaignId);
  const params = ads.metrics.get(campaignId);
  if (!cell || !params) return undefined;
  const hourStart = lastHour(s.now());
  return { cell, hourStart, figures: hourFigures(s.seed, params, campaignId, hourStart, ads.digits) };
}

/** The last full hour of a campaign's traffic and conversions. */
const HOURLY = { SP_TRAFFIC: spTraffic, SP_CONVERSION: spConversion } as const;

export function raiseHourOfMetrics(
  s: EventSources,
  ads: ProfileAds,
  campaignId: string,
  which: ReadonlyArray<keyof typeof HOURLY> = ['SP_TRAFFIC', 'SP_CONVERSION'],
): boolean {
  const hour = hourOf(s, ads, campaignId);
  if (!hour) return false;
  for (const type of which)
    s.hub.stream(type, ads.profileId, HOURLY[type](sellerOf(s), ads, hour.cell, hour.hourStart, hour.figures));
  return true;
}

/** A listing event: finds the listing, then builds the payload from it. */
const listingEvent =
  (type: SellingType, build: (s: EventSources, l: LiveListing) => object, fits?: (l: LiveListing) => boolean): Raise =>
  (s, t) => {
    const l = findListing(s, t, fits);
    if (!l) return 'no such listing';
    s.hub.selling(type, sellerOf(s), build(s, l));
    return undefined;
  };

const orderEvent =
  (type: SellingType, build: (sellerId: string, order: SimOrder, now: number) => object, afnOnly: boolean): Raise =>
  (s, t) => {
    const order = findOrder(s, t, (o) => !afnOnly || o.fulfillmentChannel === 'AFN');
    if (!order) return 'no such order';
    s.hub.selling(type, sellerOf(s), build(sellerOf(s), order, s.now()));
    return undefined;
  };

const adsEvent =
  (raise: (s: EventSources, ads: ProfileAds, campaign: Record<string, unknown>, t: EventTarget) => boolean): Raise =>
  (s, t) => {
    const ads = findProfile(s, t.profileId);
    if (!ads) return 'no such profile';
    const campaign = findCampaign(ads, t.campaignId);
    if (!campaign) return 'no such campaign';
    return raise(s, ads, campaign, t) ? undefined : 'no such entity';
  };

const entityEvent = (resources: SpResource[]): Raise =>
  adsEvent((s, ads, campaign, t) => {
    for (const resource of resources) {
      const entity = findEntity(ads, resource, SP_RESOURCES[resource].idKey, String(campaign.campaignId), t.entityId);
      if (entity) {
        raiseEntityChange(s, ads, resource, entity);
        return true;
      }
    }
    return false;
  });

const marketplaceOf = (s: EventSources, t: EventTarget) =>
  t.marketplaceId ?? s.seller.participations[0]!.marketplace.id;

export const RAISERS: Readonly<Record<EventType, Raise>> = {
  ANY_OFFER_CHANGED: listingEvent('ANY_OFFER_CHANGED', (s, l) =>
    anyOfferChanged(sellerOf(s), l, s.competition, iso(s), 'External'),
  ),
  B2B_ANY_OFFER_CHANGED: listingEvent(
    'B2B_ANY_OFFER_CHANGED',
    (s, l) => b2bAnyOfferChanged(sellerOf(s), l, s.competition, iso(s)),
    (l) => l.b2bPrice !== null,
  ),
  PRICING_HEALTH: listingEvent('PRICING_HEALTH', (s, l) => pricingHealth(sellerOf(s), l, s.competition, iso(s))),
  LISTINGS_ITEM_STATUS_CHANGE: listingEvent('LISTINGS_ITEM_STATUS_CHANGE', (s, l) =>
    listingStatusChange(sellerOf(s), l),
  ),
  LISTINGS_ITEM_ISSUES_CHANGE: listingEvent('LISTINGS_ITEM_ISSUES_CHANGE', (s, l) =>
    listingIssuesChange(sellerOf(s), l),
  ),
  LISTINGS_ITEM_MFN_QUANTITY_CHANGE: listingEvent(
    'LISTINGS_ITEM_MFN_QUANTITY_CHANGE',
    (s, l) => mfnQuantityChange(sellerOf(s), l),
    (l) => l.fulfillmentChannel === 'MFN',
  ),
  FBA_INVENTORY_AVAILABILITY_CHANGES: (s, t) => {
    const l = findListing(s, t, (x) => x.fulfillmentChannel === 'FBA');
    if (!l) return 'no such FBA listing';
    raiseFbaInventory(s, l);
    return undefined;
  },
  BRANDED_ITEM_CONTENT_CHANGE: listingEvent('BRANDED_ITEM_CONTENT_CHANGE', (s, l) =>
    brandedItemContentChange(l, s.selling.listings.catalog.productByAsin(l.asin)?.brand ?? s.seller.name, [
      'item_name',
    ]),
  ),
  ORDER_CHANGE: orderEvent('ORDER_CHANGE', orderChange, false),
  FBA_OUTBOUND_SHIPMENT_STATUS: orderEvent('FBA_OUTBOUND_SHIPMENT_STATUS', fbaOutboundShipmentStatus, true),
  FULFILLMENT_ORDER_STATUS: orderEvent('FULFILLMENT_ORDER_STATUS', fulfillmentOrderStatus, true),
  ACCOUNT_STATUS_CHANGED: (s, t) => {
    const previous = s.market.accountStatus;
    const current = t.status ?? (previous === 'NORMAL' ? 'AT_RISK' : 'NORMAL');
    s.market.accountStatus = current;
    s.hub.selling('ACCOUNT_STATUS_CHANGED', sellerOf(s), accountStatusChanged(previous, current));
    return undefined;
  },
  FEED_PROCESSING_FINISHED: (s) => {
    s.market.issued += 1;
    const feed = {
      feedId: String(60_000_000_000 + s.market.issued),
      feedType: 'JSON_LISTINGS_FEED',
      processingStatus: 'DONE' as const,
    };
    s.hub.selling('FEED_PROCESSING_FINISHED', sellerOf(s), feedProcessingFinished(sellerOf(s), feed));
    return undefined;
  },
  ITEM_SALES_EVENT_CHANGE: (s, t) => {
    const marketplaceId = marketplaceOf(s, t);
    const l = findListing(s, { ...t, marketplaceId });
    if (!l) return 'no listing in that marketplace';
    const hour = lastHour(s.now());
    const orders = ordersBetween(s, marketplaceId, hour, hour + 3_600_000);
    const payload = itemSalesEventChange(accountIdOf(sellerOf(s)), marketplaceId, l.currency, hour, orders, l.asin);
    s.hub.selling('ITEM_SALES_EVENT_CHANGE', sellerOf(s), payload);
    return undefined;
  },
  DETAIL_PAGE_TRAFFIC_EVENT: (s, t) => {
    const marketplaceId = marketplaceOf(s, t);
    const l = findListing(s, { ...t, marketplaceId });
    if (!l) return 'no listing in that marketplace';
    const payload = detailPageTrafficEvent(s.seed, sellerOf(s), marketplaceId, [l.asin], lastHour(s.now()));
    s.hub.selling('DETAIL_PAGE_TRAFFIC_EVENT', sellerOf(s), payload);
    return undefined;
  },
  REPORT_PROCESSING_FINISHED: (s) => {
    const id = String(70_000_000_000 + ++s.market.issued);
    const subject = 'GET_MERCHANT_LISTINGS_ALL_DATA';
    jobFinished(s, {
      api: 'reports',
      id,
      owner: 'seller',
      subject,
      processingStatus: 'DONE',
      documentId: `amzn1.spdoc.1.4.na.${id}`,
    });
    return undefined;
  },
  DATA_KIOSK_QUERY_PROCESSING_FINISHED: (s) => {
    const id = String(70_000_000_000 + ++s.market.issued);
    const subject = 'query { analytics_economics_2024_03_15 { economics { date } } }';
    jobFinished(s, { api: 'dataKiosk', id, owner: 'seller', subject, processingStatus: 'DONE' });
    return undefined;
  },
  BUDGET_USAGE: adsEvent((s, ads, campaign) => {
    raiseBudgetUsage(s, ads, campaign, 5);
    return true;
  }),
  SP_TRAFFIC: adsEvent((s, ads, campaign) => raiseHourOfMetrics(s, ads, String(campaign.campaignId), ['SP_TRAFFIC'])),
  SP_CONVERSION: adsEvent((s, ads, campaign) =>
    raiseHourOfMetrics(s, ads, String(campaign.campaignId), ['SP_CONVERSION']),
  ),
  CAMPAIGN_CHANGE: entityEvent(['campaigns']),
  AD_GROUP_CHANGE: entityEvent(['adGroups']),
  AD_CHANGE: entityEvent(['productAds']),
  TARGET_CHANGE: entityEvent(['keywords', 'targets']),
};
