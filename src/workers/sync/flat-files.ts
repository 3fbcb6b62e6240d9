import { marketplaceById } from '../../domain/shared/marketplaces.js';
import { minorDigits } from '../../projections/observed/economics-support.js';
import { decimalMinor } from '../../projections/observed/orders.js';

// The bulk flat-file reports of a first sync, recorded as the same observations as the
// per-order and per-listing reads (docs/decisions/068-backfill-by-report.md): the orders report's
// rows become Orders API orders with their items embedded as `OrderItems`, the listings
// report's rows become Listings Items API items. A field the report lacks is left out, never
// invented; the two that the read models need are filled and named as such: an order item's
// `OrderItemId` (`report:<order id>:<SKU>`) and a listing's currency (its marketplace's).

type Row = Record<string, string>;
type Money = { CurrencyCode: string; Amount: string };

/** An item id the report doesn't give: unique within its order, and marked as not the provider's. */
export const reportOrderItemId = (amazonOrderId: string, sku: string): string => `report:${amazonOrderId}:${sku}`;

/** A flat file's time stamp (`2026-03-01T12:34:56+00:00`) in the Orders API's form (`…Z`, no milliseconds). */
function apiTime(text: string): string | undefined {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined;
}

const money = (amount: string | undefined, currency: string): Money | undefined =>
  amount && currency ? { CurrencyCode: currency, Amount: amount } : undefined;

const formatMinor = (minor: number, currency: string): string => {
  const digits = minorDigits(currency);
  return digits === 0 ? String(minor) : (minor / 10 ** digits).toFixed(digits);
};

/** The flat file's order-status as the Orders API's OrderStatus ("Shipping": shipped in part or not yet). */
function orderStatus(lines: readonly Row[]): string {
  const status = lines[0]!['order-status'] ?? '';
  if (status === 'Cancelled') return 'Canceled';
  if (status !== 'Shipping') return status;
  return lines.some((l) => l['item-status'] === 'Shipped') ? 'PartiallyShipped' : 'Unshipped';
}

/** Amounts a line adds to its order's total, and those it takes off (a discount's sign varies). */
const ADDED = ['item-price', 'item-tax', 'shipping-price', 'shipping-tax', 'gift-wrap-price', 'gift-wrap-tax'];
const DISCOUNTS = ['item-promotion-discount', 'ship-promotion-discount'];

function orderOf(lines: readonly Row[], marketplaceId: string): Record<string, unknown> {
  const first = lines[0]!;
  const status = orderStatus(lines);
  const currency = lines.find((l) => l.currency)?.currency ?? '';
  const afn = first['fulfillment-channel'] === 'Amazon';
  // What getOrderItems answers: nothing while the order is Pending.
  const items =
    status === 'Pending'
      ? []
      : lines.map((l) => {
          const quantity = Number(l.quantity);
          return dropUndefined({
            ASIN: l.asin || undefined,
            SellerSKU: l.sku || undefined,
            OrderItemId: reportOrderItemId(first['amazon-order-id']!, l.sku ?? ''),
            Title: l['product-name'] || undefined,
            QuantityOrdered: quantity,
            QuantityShipped: l['item-status'] === 'Shipped' ? quantity : 0,
            ItemPrice: money(l['item-price'], l.currency || currency),
            ItemTax: money(l['item-tax'], l.currency || currency),
            ShippingPrice: money(l['shipping-price'], l.currency || currency),
            ShippingTax: money(l['shipping-tax'], l.currency || currency),
            GiftWrapPrice: money(l['gift-wrap-price'], l.currency || currency),
            GiftWrapTax: money(l['gift-wrap-tax'], l.currency || currency),
            PromotionDiscount: money(l['item-promotion-discount'], l.currency || currency),
            ShippingDiscount: money(l['ship-promotion-discount'], l.currency || currency),
            PromotionIds: l['promotion-ids'] ? l['promotion-ids'].split(',') : undefined,
            PriceDesignation: l['price-designation'] || undefined,
          });
        });
  const units = lines.reduce((n, l) => n + Number(l.quantity || 0), 0);
  const shipped = lines.reduce((n, l) => n + (l['item-status'] === 'Shipped' ? Number(l.quantity || 0) : 0), 0);
  return dropUndefined({
    AmazonOrderId: first['amazon-order-id'],
    PurchaseDate: apiTime(first['purchase-date'] ?? ''),
    LastUpdateDate: apiTime(first['last-updated-date'] ?? ''),
    OrderStatus: status,
    FulfillmentChannel: afn ? 'AFN' : 'MFN',
    SalesChannel: first['sales-channel'] || undefined,
    ShipmentServiceLevelCategory: first['ship-service-level'] || undefined,
    // The Orders API gives no total for pending and canceled orders.
    OrderTotal: status === 'Pending' || status === 'Canceled' ? undefined : orderTotal(lines, currency),
    NumberOfItemsShipped: status === 'Canceled' ? 0 : shipped,
    NumberOfItemsUnshipped: status === 'Canceled' ? 0 : units - shipped,
    MarketplaceId: marketplaceId,
    IsBusinessOrder: first['is-business-order'] === 'true',
    OrderItems: items,
  });
}

function orderTotal(lines: readonly Row[], currency: string): Money | undefined {
  if (!currency) return undefined;
  let minor = 0;
  for (const line of lines) {
    for (const column of [...ADDED, ...DISCOUNTS]) {
      const amount = line[column] ? decimalMinor(line[column], currency) : 0;
      if (amount === null) return undefined;
      minor += DISCOUNTS.includes(column) ? -Math.abs(amount) : amount;
    }
  }
  return { CurrencyCode: currency, Amount: formatMinor(minor, currency) };
}

/** One day's orders (order-days.ts: each order's lines) in the Orders API's shape with `OrderItems`, in purchase order. */
export function ordersOfDay(orders: readonly Row[][], marketplaceId: string): Record<string, unknown>[] {
  const built = orders.map((lines) => orderOf(lines, marketplaceId));
  // stable: orders placed in the same second keep the report's order, which is the API's
  return built.sort((a, b) => String(a.PurchaseDate).localeCompare(String(b.PurchaseDate)));
}

/** item-condition codes of the flat file → condition_type (11, New, doesn't say which kind: new_new). */
const CONDITION_TYPE: Readonly<Record<string, string>> = {
  '1': 'used_like_new',
  '2': 'used_very_good',
  '3': 'used_good',
  '4': 'used_acceptable',
  '5': 'collectible_like_new',
  '6': 'collectible_very_good',
  '7': 'collectible_good',
  '8': 'collectible_acceptable',
  '9': 'club_club',
  '10': 'refurbished_refurbished',
  '11': 'new_new',
};

/** The report's status → the Listings Items API's status array (Incomplete: none reported yet). */
const STATUSES: Readonly<Record<string, string[]>> = {
  Active: ['BUYABLE', 'DISCOVERABLE'],
  Inactive: ['DISCOVERABLE'],
};

/** A flat file's open-date (`2024-05-01 10:20:33 UTC`, or with a numeric offset) in ISO 8601. */
function openDate(text: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) (UTC|GMT|[+-]\d{2}:?\d{2})$/.exec(text.trim());
  if (!match) return undefined;
  const offset = match[3] === 'UTC' || match[3] === 'GMT' ? 'Z' : match[3]!;
  return apiTime(`${match[1]}T${match[2]}${offset}`);
}

/**
 * A row of a GET_MERCHANT_LISTINGS_ALL_DATA report of one marketplace as a Listings Items API
 * item (summaries, attributes): what the report states, nothing more; null without a SKU.
 */
export function listingFromReport(row: Row, marketplaceId: string): Record<string, unknown> | null {
  const sku = row['seller-sku'];
  if (!sku) return null;
  const currency = marketplaceById(marketplaceId)?.currency;
  const mp = { marketplace_id: marketplaceId };
  const schedule = (amount: string | undefined) =>
    amount && Number.isFinite(Number(amount)) ? [{ schedule: [{ value_with_tax: Number(amount) }] }] : undefined;
  const conditionType = CONDITION_TYPE[row['item-condition'] ?? ''];
  const channel = row['fulfillment-channel'] || undefined;
  const quantity = row.quantity ? Number(row.quantity) : undefined;
  const offers = [
    dropUndefined({ ...mp, currency, audience: 'ALL', our_price: schedule(row.price) }),
    ...(row['Business Price']
      ? [dropUndefined({ ...mp, currency, audience: 'B2B', our_price: schedule(row['Business Price']) })]
      : []),
  ];
  return {
    sku,
    summaries: [
      dropUndefined({
        marketplaceId,
        asin: row.asin1 || undefined,
        conditionType,
        status: STATUSES[row.status ?? ''],
        itemName: row['item-name'] || undefined,
        createdDate: openDate(row['open-date'] ?? ''),
      }),
    ],
    attributes: dropUndefined({
      item_name: row['item-name'] ? [{ value: row['item-name'], ...mp }] : undefined,
      condition_type: conditionType ? [{ value: conditionType, ...mp }] : undefined,
      purchasable_offer: offers,
      fulfillment_availability: channel
        ? [dropUndefined({ fulfillment_channel_code: channel, quantity, ...mp })]
        : undefined,
      merchant_shipping_group: row['merchant-shipping-group']
        ? [{ value: row['merchant-shipping-group'], ...mp }]
        : undefined,
    }),
  };
}

function dropUndefined<T extends Record<string, unknown>>(o: T): T {
  for (const key of Object.keys(o)) if (o[key] === undefined) delete o[key];
  return o;
}
