import { CURRENT_LISTINGS_TABLE } from '../observed/listings.js';
import { SALES_DAYS_TABLE, SALES_LINES_TABLE, SALES_SKUS_TABLE } from '../observed/sales-rollups.js';
import type { ViewDefinition } from './definition.js';
import { accountId, count, MARKETPLACE_ID, MARKETPLACES_JOIN, money, column } from './shared.js';

/** The current title of the listing (account, marketplace, SKU) of rows `o`: null when it is deleted or no longer listed. */
const TITLE_JOIN = `left join rm.${CURRENT_LISTINGS_TABLE} l on l.account_id = o.account_id and l.marketplace_id = o.marketplace_id and l.sku = o.sku`;
const TITLE_SQL = `case when l.status is distinct from 'DELETED' then l.title end`;

/** The measures of a sales rollup row (sales-rollups.ts) as RollupDefinition names them. */
const ROLLUP_SUMS = `case when o.priced_lines > 0 then o.revenue end as price, o.priced_lines as rollup_price_count, o.units as quantity, o.lines as rollup_rows`;

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
  // sales_lines holds exactly the confirmed lines of complete reads; the title join goes by
  // listing_current's primary key, so the planner drops it when a query doesn't read title
  sql: `select o.account_id, o.order_id, o.amazon_order_id, o.sold_at, o.order_status, o.is_business_order, o.marketplace_id,
  o.currency, o.asin, o.sku, ${TITLE_SQL} as title, o.price::integer as price, o.quantity
from rm.${SALES_LINES_TABLE} o
${TITLE_JOIN}`,
  measures: ['price', 'quantity'],
  // revenue is null for a group whose every price is null, as sum(price) would be
  rollups: [
    {
      name: 'v_sales_lines_by_day',
      dimensions: ['marketplace_id', 'currency', 'order_status', 'is_business_order'],
      days: ['sold_at'],
      sql: `select o.account_id, o.marketplace_id, o.currency, o.order_status, o.is_business_order,
  o.day::timestamp at time zone 'UTC' as sold_at, ${ROLLUP_SUMS}
from rm.${SALES_DAYS_TABLE} o where o.lines > 0`,
    },
    {
      name: 'v_sales_lines_by_sku',
      dimensions: ['marketplace_id', 'currency', 'asin', 'sku', 'title'],
      days: [],
      sql: `select o.account_id, o.marketplace_id, o.currency, o.asin, o.sku, ${TITLE_SQL} as title, ${ROLLUP_SUMS}
from rm.${SALES_SKUS_TABLE} o
${TITLE_JOIN}`,
    },
  ],
};
