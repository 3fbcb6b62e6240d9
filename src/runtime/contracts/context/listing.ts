import type { Field } from '../fields.js';
import { ADVERTISING_PROFILES, CAMPAIGN_IN_LISTING, CHILDREN, deals } from './ads-entities.js';
import { COMMON, receiptsAt } from './common.js';
import { field, listAt, maybe, money, objectAt, targetType } from './field.js';

// The Listing scope (spec 2.6): the listing the event is about, in major units, with the
// advertising entities linked to it and the account's advertising profiles.

const LISTING: readonly Field[] = [
  targetType('Listing'),
  field('id', 'string', 'local listing id (the mutation target id)'),
  field('asin', 'string', 'ASIN'),
  field('sku', 'string', 'SKU'),
  field('title', 'string', 'title'),
  field('currencyCode', 'string', 'currency of every amount here; used in offer patches'),
  field('marketplace', 'object', 'the marketplace'),
  field('marketplace.id', 'string', 'marketplace id (matches MarketplaceId in region-wide events)'),
  field('marketplace.timeZone', 'string', 'IANA time zone name, for hour-of-day logic'),
  money('price', 'your price; null until reported', true),
  maybe('quantity', 'number', 'available quantity (self-fulfilled); null for FBA (see fbaReport)'),
  money('floor', 'minimum seller-allowed price; null when unset', true),
  money('ceiling', 'maximum seller-allowed price; null when unset', true),
  money('b2bPrice', 'B2B price; null when no B2B offer', true),
  field('b2bSales30d', 'number', 'B2B units sold in 30 days; 0 when none'),
  maybe('condition', 'string', 'new, used, collectible, refurbished or club; null until reported'),
  maybe('conditionType', 'string', "the marketplace's full condition token"),
  field('fulfillmentChannel', 'string', '"Amazon" (FBA) or "Merchant" (MFN); never null'),
  maybe('handlingTime', 'number', 'business days (lead_time_to_ship_max_days); null = account default', {
    unit: 'business days',
  }),
  maybe('restockDate', 'string', 'YYYY-MM-DD'),
  maybe('shippingGroup', 'string', 'merchant shipping template id; FBA listings have none'),
  money(
    'shippingCost',
    '0 when the marketplace fulfils; null (self-fulfilled) until an offer event carries your offer',
    true,
  ),
  maybe('statuses', 'array', 'BUYABLE, DISCOVERABLE, DELETED; null = unknown (not empty) until first reported'),
  maybe('buyable', 'boolean', 'from statuses; null while statuses is null (never read null as false)'),
  maybe('discoverable', 'boolean', 'from statuses; null while statuses is null'),
  maybe('deleted', 'boolean', 'from statuses; null while statuses is null'),
  field('blocked', 'boolean', 'automated changes are blocked (update_listing); requests are recorded as blocked'),
  maybe('productType', 'string', 'product type; offer patches to /attributes/purchasable_offer send PRODUCT instead'),
  field('data', 'object', 'raw sources, original keys and units: fba.inventory, listings_item, notifications'),
  maybe(
    'fbaReport',
    'object',
    'FBA report row, keys camelCased from the report columns; vary, treat as optional; decimal strings (parseInt); null for MFN and until an FBA inventory report landed (none is synced yet: read data.fba.inventory)',
  ),
  maybe('fcReport', 'object', 'fulfillment-centre report data; null until a report landed (none is synced yet)'),
  ...deals("the listing's ASIN"),
  ...listAt('campaigns', 'campaigns linked to the listing (or created by its automation)', CAMPAIGN_IN_LISTING),
  ...CHILDREN,
  field('keywords', 'array', 'the keyword subset of targets (same entries)'),
  ...receiptsAt('mutations', 'recent listing requests: queued, submitting, uncertain, plus the latest settled one'),
];

export const LISTING_CONTEXT: readonly Field[] = [
  ...objectAt('listing', 'the listing the event is about (one run per listing the event reaches)', LISTING),
  ...ADVERTISING_PROFILES,
  ...COMMON,
];
