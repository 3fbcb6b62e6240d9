import { completeReads } from '../observed/economics-support.js';
import type { ViewColumn, ViewDefinition } from './definition.js';
import {
  accountId,
  count,
  MARKETPLACE_ID,
  MARKETPLACES_JOIN,
  money,
  MONEY_WARNING,
  ROW_CURRENCY,
  column,
} from './shared.js';
import { ECONOMICS_DATASET } from '../../domain/observation/datasets.js';

/** The four named fees and their sum, signed (charges negative). */
const FEES: ViewColumn[] = [
  money('referral_fee', true, 'referral fees, signed (charges negative); null on a day with no such fee'),
  money('fulfillment_fee', true, 'FBA fulfillment fees, signed; null on a day with none (merchant-fulfilled SKUs)'),
  money('storage_fee', true, 'FBA storage fees, signed; null on a day with none'),
  money('other_fees', true, 'every other fee (e.g. refund commission), signed; null on a day with none'),
  money('total_fees', false, 'the four named fees summed (nulls as 0), signed'),
];

export const vSellerEconomics: ViewDefinition = {
  name: 'v_seller_economics',
  audience: 'seller',
  grain: 'one row per SKU per day per marketplace',
  columns: [
    accountId('seller'),
    column('sku', 'text', false, "the seller's SKU (MSKU)"),
    column('asin', 'text', false, 'the ASIN the SKU sells; several SKUs can share one'),
    column('date', 'date', false, 'the day the figures describe'),
    MARKETPLACE_ID,
    ROW_CURRENCY,
    money('ordered_product_sales', false, 'sales of the units ordered that day'),
    money('net_product_sales', false, 'ordered product sales less refunds'),
    ...FEES,
    money('net_proceeds', false, 'net_product_sales + total_fees, exactly'),
    money('net_proceeds_per_unit', true, 'net_proceeds / net_units_sold, rounded; null when no unit was sold net'),
    count('net_units_sold', false, 'units ordered less units refunded', 'integer'),
    count('units_ordered', false, 'units ordered that day', 'integer'),
    count('units_refunded', false, "units of that day's orders refunded so far", 'integer'),
  ],
  freshness:
    'From the Data Kiosk economics dataset, read daily per marketplace; a day is reported from the next day on. About the most recent 7 days restate (refunds arrive for up to a week) and are re-read on every sync.',
  joins: [
    {
      view: 'v_sales_lines',
      on: 'account_id, marketplace_id, sku, date = sold_at::date',
      fanOut: 'one economics row meets every order line of that SKU and day: aggregate the lines first',
    },
    { view: 'v_listings', on: 'account_id, marketplace_id, sku', fanOut: null },
    MARKETPLACES_JOIN,
  ],
  warnings: [
    'Several SKUs can share an ASIN: aggregate to (asin, date) before joining to order lines or other per-ASIN views.',
    'Fees are signed (charges negative): net_product_sales + total_fees = net_proceeds.',
    'The latest ~7 days restate; totals over them will still move.',
    MONEY_WARNING,
  ],
  dateColumn: 'date',
  sql: `select e.account_id, e.sku, e.asin, e.date, e.marketplace_id, e.currency,
  e.ordered_product_sales, e.net_product_sales, e.referral_fee, e.fulfillment_fee, e.storage_fee, e.other_fees,
  e.total_fees, e.net_proceeds, e.net_proceeds_per_unit, e.net_units_sold, e.units_ordered, e.units_refunded
from rm.seller_economics e
${completeReads('e', ECONOMICS_DATASET)}`,
};
