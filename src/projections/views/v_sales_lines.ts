import { CURRENT_LISTINGS_TABLE } from '../observed/listings.js';
import {
  SALES_DAYS_TABLE,
  SALES_LINES_TABLE,
  SALES_LISTINGS_TABLE,
  SALES_SKUS_TABLE,
} from '../observed/sales-rollups.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_sales_lines.json' with { type: 'json' };

/** The current title of the listing (account, marketplace, SKU) of rows `o`: null when it is deleted or no longer listed. */
const TITLE_JOIN = `left join rm.${CURRENT_LISTINGS_TABLE} l on l.account_id = o.account_id and l.marketplace_id = o.marketplace_id and l.sku = o.sku`;
const TITLE_SQL = `case when l.status is distinct from 'DELETED' then l.title end`;

/** The measures of a sales rollup row (sales-rollups.ts) as RollupDefinition names them. */
const ROLLUP_SUMS = `case when o.priced_lines > 0 then o.revenue end as price, o.priced_lines as rollup_price_count, o.units as quantity, o.lines as rollup_rows`;

export const vSalesLines: ViewDefinition = {
  ...viewCatalogue(catalogue),
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
      // one row per listing's sales: title follows from (account, marketplace, SKU)
      name: 'v_sales_lines_by_listing',
      dimensions: ['marketplace_id', 'currency', 'sku', 'title'],
      days: [],
      unique: ['marketplace_id', 'currency', 'sku'],
      sql: `select o.account_id, o.marketplace_id, o.currency, o.sku, ${TITLE_SQL} as title, ${ROLLUP_SUMS}
from rm.${SALES_LISTINGS_TABLE} o
${TITLE_JOIN}`,
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
