import { formatAmount, type SimListing } from '../catalog.js';
export { LISTINGS_REPORT, ORDERS_REPORT } from '../../clients/flat-file.js';
import { MARKETPLACES } from '../marketplaces.js';
import { fbaChannelCode } from '../selling/listings.js';
import { DAY_MS, orderAsOf, type SimOrder } from '../selling/orders-book.js';
import type { JobOutcome } from './jobs.js';
import { fatal, type ReportRequest, type ReportType } from './types.js';

// The seller's two bulk flat-file reports, tab-separated with a header row as the Reports API
// serves them: GET_FLAT_FILE_ALL_ORDERS_DATA_BY_ORDER_DATE_GENERAL (one row per order item of
// the orders placed in the window) and GET_MERCHANT_LISTINGS_ALL_DATA (one row per listing
// that is not deleted). They state the same facts as the simulator's Orders and Listings Items
// APIs, with the gaps of the real reports: no order item ids, no product types or price
// bounds. A document is built row by row into one string, so the year of a large seller is
// a few documents of tens of megabytes, never an array of row objects.

export const ORDERS_REPORT_COLUMNS = [
  'amazon-order-id',
  'merchant-order-id',
  'purchase-date',
  'last-updated-date',
  'order-status',
  'fulfillment-channel',
  'sales-channel',
  'order-channel',
  'url',
  'ship-service-level',
  'product-name',
  'sku',
  'asin',
  'item-status',
  'quantity',
  'currency',
  'item-price',
  'item-tax',
  'shipping-price',
  'shipping-tax',
  'gift-wrap-price',
  'gift-wrap-tax',
  'item-promotion-discount',
  'ship-promotion-discount',
  'ship-city',
  'ship-state',
  'ship-postal-code',
  'ship-country',
  'promotion-ids',
  'is-business-order',
  'purchase-order-number',
  'price-designation',
  'is-iba',
] as const;

export const LISTINGS_REPORT_COLUMNS = [
  'item-name',
  'item-description',
  'listing-id',
  'seller-sku',
  'price',
  'quantity',
  'open-date',
  'image-url',
  'item-is-marketplace',
  'product-id-type',
  'zshop-shipping-fee',
  'item-note',
  'item-condition',
  'zshop-category1',
  'zshop-browse-path',
  'zshop-storefront-feature',
  'asin1',
  'asin2',
  'asin3',
  'will-ship-internationally',
  'expedited-shipping',
  'zshop-boldface',
  'product-id',
  'bid-for-featured-placement',
  'add-delete',
  'pending-quantity',
  'fulfillment-channel',
  'Business Price',
  'merchant-shipping-group',
  'status',
] as const;

/** The longest window one orders report covers. */
const LONGEST_WINDOW_MS = 31 * DAY_MS;

/** Tabs and line breaks can't appear inside a field of a flat file. */
const field = (value: string | number | null | undefined): string =>
  value === null || value === undefined ? '' : String(value).replace(/[\t\r\n]+/g, ' ');

/** A flat file of `columns` from `rows` (a missing field is empty), or no data. */
function flatFile<C extends readonly string[]>(
  columns: C,
  rows: Iterable<Partial<Record<C[number], string | number | null>>>,
): JobOutcome {
  const lines = [columns.join('\t')];
  for (const row of rows) lines.push(columns.map((c: C[number]) => field(row[c])).join('\t'));
  return lines.length === 1 ? { kind: 'empty' } : { kind: 'document', body: `${lines.join('\n')}\n` };
}

/** The report's marketplaces, each one the seller sells in; or the FATAL message. */
function marketplacesOf(request: ReportRequest): string[] | string {
  const unknown = request.marketplaceIds.find((id) => !MARKETPLACES.some((m) => m.id === id));
  return unknown ? `The seller does not sell in ${unknown}.` : request.marketplaceIds;
}

/** Flat-file time stamps: ISO 8601 with a numeric offset. */
const flatTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

/** Orders API status → the flat file's order-status (Unshipped and PartiallyShipped are both "Shipping"). */
const ORDER_STATUS = {
  Pending: 'Pending',
  Unshipped: 'Shipping',
  PartiallyShipped: 'Shipping',
  Shipped: 'Shipped',
  Canceled: 'Cancelled',
} as const;

function* orderRows(order: SimOrder, at: number) {
  const state = orderAsOf(order, at);
  const marketplace = MARKETPLACES.find((m) => m.id === order.marketplaceId)!;
  const afn = order.fulfillmentChannel === 'AFN';
  const pending = state.status === 'Pending';
  const money = (minor: number) => (pending ? null : formatAmount(minor, order.currency));
  for (const [i, line] of order.lines.entries()) {
    yield {
      'amazon-order-id': order.amazonOrderId,
      'purchase-date': flatTime(order.purchasedAt),
      'last-updated-date': flatTime(state.lastUpdatedAt),
      'order-status': ORDER_STATUS[state.status],
      'fulfillment-channel': afn ? 'Amazon' : 'Merchant',
      'sales-channel': marketplace.name,
      'ship-service-level': afn ? 'Expedited' : 'Standard',
      'product-name': line.listing.title,
      sku: line.listing.sku,
      asin: line.listing.asin,
      'item-status': state.status === 'Canceled' ? 'Cancelled' : i < state.shippedLines ? 'Shipped' : 'Unshipped',
      quantity: line.quantity,
      // a pending order's amounts are not known yet: the report leaves them empty
      currency: pending ? null : order.currency,
      'item-price': money(line.itemPrice),
      'item-tax': money(line.itemTax),
      'shipping-price': money(0),
      'shipping-tax': money(0),
      'gift-wrap-price': money(0),
      'gift-wrap-tax': money(0),
      'item-promotion-discount': money(0),
      'ship-promotion-discount': money(0),
      'ship-country': marketplace.countryCode,
      'is-business-order': String(order.isBusinessOrder),
      'price-designation': order.isBusinessOrder && line.listing.b2bPrice !== null ? 'BusinessPrice' : null,
      'is-iba': 'false',
    };
  }
}

/** Orders placed in [dataStartTime, dataEndTime] (and by the report's "now"), by purchase date. */
export const allOrdersByOrderDate: ReportType = {
  principal: 'seller',
  produce(request, source) {
    const marketplaces = marketplacesOf(request);
    if (typeof marketplaces === 'string') return fatal(marketplaces);
    const from = Date.parse(request.dataStartTime ?? '');
    const to = Math.min(request.dataEndTime === undefined ? source.asOf : Date.parse(request.dataEndTime), source.asOf);
    if (!Number.isFinite(from) || !Number.isFinite(to) || to < from)
      return fatal('dataStartTime is required, and dataEndTime must not be before it.');
    if (to - from > LONGEST_WINDOW_MS) return fatal('The window of this report must not exceed 31 days.');
    function* rows() {
      for (let day = Math.floor(from / DAY_MS); day <= Math.floor(to / DAY_MS); day++) {
        for (const marketplaceId of marketplaces as string[]) {
          for (const order of source.selling.orders.ordersOn(day, marketplaceId)) {
            if (order.purchasedAt >= from && order.purchasedAt <= to) yield* orderRows(order, source.asOf);
          }
        }
      }
    }
    return flatFile(ORDERS_REPORT_COLUMNS, rows());
  },
};

/** Listings API condition_type → the flat file's item-condition code (new variants are all New). */
const CONDITION_CODE: Readonly<Record<string, number>> = {
  used_like_new: 1,
  used_very_good: 2,
  used_good: 3,
  used_acceptable: 4,
  collectible_like_new: 5,
  collectible_very_good: 6,
  collectible_good: 7,
  collectible_acceptable: 8,
  club_club: 9,
  refurbished_refurbished: 10,
};

/** Every listing of the marketplaces that is not deleted, as the marketplace shows it now. */
export const merchantListingsAll: ReportType = {
  principal: 'seller',
  produce(request, source) {
    const marketplaces = marketplacesOf(request);
    if (typeof marketplaces === 'string') return fatal(marketplaces);
    const { listings } = source.selling;
    function* rows() {
      for (const marketplaceId of marketplaces as string[]) {
        for (const generated of listings.catalog.listingsIn(marketplaceId)) {
          const l = listings.live(generated);
          if (l.status === 'DELETED') continue;
          const fba = l.fulfillmentChannel === 'FBA';
          yield {
            'item-name': l.title,
            'listing-id': listingIdOf(l),
            'seller-sku': l.sku,
            price: formatAmount(l.price, l.currency),
            // FBA stock is the fulfillment network's, not reported here
            quantity: fba ? null : l.quantity,
            'open-date': l.createdAt.replace('T', ' ').replace(/(\.\d{3})?Z$/, ' UTC'),
            'item-is-marketplace': 'y',
            'product-id-type': 1,
            'item-condition': CONDITION_CODE[l.conditionType] ?? 11,
            asin1: l.asin,
            'will-ship-internationally': fba ? null : 1,
            'product-id': l.asin,
            'fulfillment-channel': fba ? fbaChannelCode(l.marketplaceId) : 'DEFAULT',
            'Business Price': l.b2bPrice === null ? null : formatAmount(l.b2bPrice, l.currency),
            'merchant-shipping-group': l.shippingGroup,
            status: l.status === 'BUYABLE' ? 'Active' : l.status === 'DISCOVERABLE' ? 'Inactive' : 'Incomplete',
          };
        }
      }
    }
    return flatFile(LISTINGS_REPORT_COLUMNS, rows());
  },
};

const listingIdOf = (l: SimListing) => `${(1_000 + l.index).toString(36).toUpperCase().padStart(6, '0')}L${l.index}`;
