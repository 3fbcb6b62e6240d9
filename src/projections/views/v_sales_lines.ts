import { completeReads } from '../observed/economics-support.js';
import { currentListingsSql } from '../observed/listings.js';
import { ORDER_LINES_TABLE } from '../observed/orders.js';
import type { ViewDefinition } from './definition.js';
import { accountId, count, MARKETPLACE_ID, MARKETPLACES_JOIN, money, column } from './shared.js';
import { ORDERS_DATASET } from '../../domain/observation/datasets.js';

/** Order statuses of confirmed orders: Pending has no lines yet, Canceled is excluded. */
export const CONFIRMED_ORDER_STATUSES = ['Unshipped', 'PartiallyShipped', 'Shipped', 'InvoiceUnconfirmed'] as const;

export const vSalesLines: ViewDefinition = {
  name: 'v_sales_lines',
  audience: 'seller',
  grain: 'one row per order line of a confirmed order (cancellations excluded; pending orders have no lines)',
  columns: [
    accountId('seller'),
    column('order_id', 'uuid', false, 'our id of the order, stable for its amazon_order_id'),
    column('amazon_order_id', 'text', false, "the marketplace's order id (3-7-7)"),
    column('sold_at', 'timestamptz', false, 'when the order was placed (PurchaseDate), UTC'),
    column('order_status', 'text', false, 'Unshipped, PartiallyShipped, Shipped or InvoiceUnconfirmed, as last read'),
    column('is_business_order', 'boolean', false, 'an Amazon Business (B2B) order'),
    MARKETPLACE_ID,
    column('currency', 'text', true, 'ISO 4217 code of price'),
    column('asin', 'text', false, 'the ASIN sold'),
    column('sku', 'text', true, "the seller's SKU sold"),
    column(
      'title',
      'text',
      true,
      "the listing's current title; null when the listing is gone (deleted or no longer listed)",
    ),
    money('price', true, 'the line total (unit price × quantity, ItemPrice), tax and shipping excluded', 'integer'),
    count('quantity', false, 'units ordered on the line', 'integer'),
  ],
  freshness:
    'From the Orders API, by day of purchase (UTC): the past year once, then the trailing 14 days re-read about every 30 minutes, so status changes and new orders of today show within the hour.',
  joins: [
    { view: 'v_listings', on: 'account_id, marketplace_id, sku', fanOut: null },
    { view: 'v_catalog_items', on: 'account_id, marketplace_id, asin', fanOut: null },
    {
      view: 'v_seller_economics',
      on: 'account_id, marketplace_id, sku, sold_at::date = date',
      fanOut: 'each line meets its SKU-day economics row: aggregate the lines per sku and day first',
    },
    MARKETPLACES_JOIN,
  ],
  warnings: [
    'Money is in minor units of the row currency (JPY has no subunit); never sum price across currencies.',
    'price is the line total, not the unit price: sum(price), not sum(price * quantity).',
    'Days are UTC, not the marketplace local day.',
  ],
  dateColumn: 'sold_at',
  sql: `select o.account_id, o.order_id, o.amazon_order_id, o.purchased_at as sold_at, o.order_status, o.is_business_order, o.marketplace_id,
  o.currency, o.asin, o.sku, l.title, o.price::integer as price, o.quantity
from rm.${ORDER_LINES_TABLE} o
${completeReads('o', ORDERS_DATASET)}
left join (${currentListingsSql}) l on l.account_id = o.account_id and l.marketplace_id = o.marketplace_id and l.sku = o.sku and l.status is distinct from 'DELETED'
where o.order_status in (${CONFIRMED_ORDER_STATUSES.map((s) => `'${s}'`).join(', ')})`,
};
