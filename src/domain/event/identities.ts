import { arr, obj, type Json } from '../shared/json.js';
import { streamType } from '../stream/types.js';
import { pick } from './message.js';

// The listings and advertising entities a message names, read from its payload alone (no lookup),
// so a rebuild finds the same ones. Matching them to local listings and campaigns is the reads'
// job (they join the observed read models), since those may be synced later than the message.

export interface Identity {
  asin: string | null;
  sku: string | null;
  marketplace_id: string | null;
  /** provider ids of the advertising entities an ads message is about */
  campaign_id: string | null;
  ad_group_id: string | null;
  ad_id: string | null;
  target_id: string | null;
}

/** An identity naming nothing: the base the readers fill in. */
export const NO_IDENTITY: Identity = {
  asin: null,
  sku: null,
  marketplace_id: null,
  campaign_id: null,
  ad_group_id: null,
  ad_id: null,
  target_id: null,
};
const listing = (o: Json | undefined, marketplace_id: string | null = null): Identity => ({
  ...NO_IDENTITY,
  asin: pick(o, 'ASIN', 'Asin', 'asin'),
  sku: pick(o, 'SKU', 'Sku', 'SellerSKU', 'sku'),
  marketplace_id: pick(o, 'MarketplaceId', 'marketplaceId') ?? marketplace_id,
});
const named = (ids: Identity[]) => ids.filter((i) => Object.values(i).some((v) => v !== null));
const at = (o: unknown, ...path: string[]): Json | undefined =>
  path.reduce<Json | undefined>((v, k) => obj(v?.[k]), obj(o));

/** Selling notifications: where each type's payload names its listings (the published shapes). */
function sellingIdentities(type: string, message: Json): Identity[] {
  const payload = obj(message.Payload ?? message.payload);
  switch (type) {
    case 'ANY_OFFER_CHANGED':
      return [listing(at(payload, 'AnyOfferChangedNotification', 'OfferChangeTrigger'))];
    case 'B2B_ANY_OFFER_CHANGED':
      return [listing(at(payload, 'B2BAnyOfferChangedNotification', 'OfferChangeTrigger'))];
    case 'PRICING_HEALTH':
      return [listing(at(payload, 'offerChangeTrigger'))];
    case 'LISTINGS_ITEM_STATUS_CHANGE':
    case 'LISTINGS_ITEM_ISSUES_CHANGE':
    case 'LISTINGS_ITEM_MFN_QUANTITY_CHANGE':
    case 'BRANDED_ITEM_CONTENT_CHANGE':
      return [listing(payload)];
    case 'ORDER_CHANGE': {
      const summary = at(payload, 'OrderChangeNotification', 'Summary');
      const marketplace = pick(summary, 'MarketplaceId');
      return arr(summary?.OrderItems).map((item) => listing(obj(item), marketplace));
    }
    case 'FBA_INVENTORY_AVAILABILITY_CHANGES': {
      const byMarketplace = arr(payload?.FulfillmentInventoryByMarketplace).map(obj);
      const item = listing(payload);
      return byMarketplace.length === 0
        ? [item]
        : byMarketplace.map((m) => ({ ...item, marketplace_id: pick(m, 'MarketplaceId') }));
    }
    case 'ITEM_SALES_EVENT_CHANGE':
      return arr(payload?.itemSalesEventChanges).map((row) => listing(obj(row)));
    case 'DETAIL_PAGE_TRAFFIC_EVENT':
      return arr(payload?.detailPageTrafficEvents).map((row) => listing(obj(row)));
    default:
      return []; // account-level notifications name no listing
  }
}

/** Marketing Stream rows: snake_case (metrics) or camelCase (entities, budget) keys. */
function adsIdentities(row: Json): Identity[] {
  const budgetCampaign = pick(row, 'budgetScopeType') === 'CAMPAIGN' ? pick(row, 'budgetScopeId') : null;
  const entity: Identity = {
    ...NO_IDENTITY,
    marketplace_id: pick(row, 'marketplaceId', 'marketplace_id'),
    campaign_id: pick(row, 'campaignId', 'campaign_id') ?? budgetCampaign,
    ad_group_id: pick(row, 'adGroupId', 'ad_group_id'),
    ad_id: pick(row, 'adId', 'ad_id'),
    target_id: pick(row, 'targetId', 'target_id', 'keywordId', 'keyword_id'),
  };
  // an ad's advertised products name its listings by ASIN
  const asins = arr(at(row, 'creative')?.products)
    .map(obj)
    .filter((p) => pick(p, 'productIdType') === 'ASIN')
    .map((p) => pick(p, 'productId'));
  return asins.length === 0 ? [entity] : asins.map((asin) => ({ ...entity, asin }));
}

/** The distinct identities a recorded message names, in payload order. */
export function identitiesOf(stream_type: string, message: Json): Identity[] {
  const found = named(
    streamType(stream_type)?.source === 'ads' ? adsIdentities(message) : sellingIdentities(stream_type, message),
  );
  const seen = new Set<string>();
  return found.filter((i) => {
    const key = JSON.stringify(i);
    return !seen.has(key) && seen.add(key);
  });
}
