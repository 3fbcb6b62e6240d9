import { completeReads } from '../observed/economics-support.js';
import type { ViewColumn, ViewDefinition } from './definition.js';
import {
  accountId,
  count,
  MARKETPLACE_ID,
  MARKETPLACES_JOIN,
  money,
  MONEY_WARNING,
  REPORTED_AT,
  ROW_CURRENCY,
  STARTS_AT,
  column,
} from './shared.js';
import { COUPONS_DATASET } from '../../domain/observation/datasets.js';

/** What the coupon may spend on discounts and fees, and how much of it is gone. */
const BUDGET: ViewColumn[] = [
  money('budget', true, 'the budget for discounts and fees'),
  money('budget_spent', false, 'spent on discounts and clip/redemption fees, cumulative'),
  money('budget_remaining', true, 'budget less budget_spent'),
  column('budget_percentage_used', 'numeric', false, 'budget_spent / budget × 100', 'percent 0-100'),
];

// Spec 2.15 shows only the grain; the columns are the coupon report's fields (money in minor units).
export const vCouponPerformance: ViewDefinition = {
  name: 'v_coupon_performance',
  audience: 'seller',
  grain: 'one row per coupon per marketplace (coupons that started within the last year)',
  columns: [
    accountId('seller'),
    column('coupon_id', 'text', false, "the marketplace's coupon id"),
    MARKETPLACE_ID,
    ROW_CURRENCY,
    column('name', 'text', true, 'the coupon name'),
    column('website_message', 'text', true, 'the message shown with the coupon'),
    STARTS_AT,
    column('ends_at', 'timestamptz', false, 'scheduled end, UTC (the marketplace may end it earlier)'),
    column('customer_segment', 'text', false, "who may clip it, e.g. 'All (Default)', 'Amazon Prime'"),
    column('discount_type', 'text', true, 'PERCENT_OFF_LIST_PRICE or AMOUNT_OFF_LIST_PRICE'),
    column('discount_percent', 'numeric', true, 'the discount when percent off; null otherwise', 'percent 0-100'),
    money('discount_amount', true, 'the discount per unit when an amount off; null otherwise'),
    count('clips', false, 'times unique customers clipped it, cumulative'),
    count('redemptions', false, 'purchases using it, cumulative, gross of returns'),
    ...BUDGET,
    money('total_discount', false, 'saved by customers, cumulative, gross of returns'),
    money('sales', true, 'revenue of redemptions after the discount, cumulative, gross of returns'),
    column('asins', 'jsonb', false, 'array of the ASINs the coupon covers'),
    REPORTED_AT,
  ],
  freshness: 'Re-read about twice a day per marketplace; totals are cumulative through the day before reported_at.',
  joins: [
    {
      view: 'v_listings',
      on: 'account_id, marketplace_id, asins ? asin',
      fanOut: 'one coupon covers several ASINs, and an ASIN several SKUs',
    },
    MARKETPLACES_JOIN,
  ],
  warnings: [
    'Totals are cumulative over the life of the coupon, not per day: never sum them over reported_at or join them to daily views without care.',
    MONEY_WARNING,
  ],
  dateColumn: 'starts_at',
  sql: `select c.account_id, c.coupon_id, c.marketplace_id, c.currency, c.name, c.website_message, c.starts_at, c.ends_at, c.customer_segment,
  c.discount_type, c.discount_percent, c.discount_amount, c.clips, c.redemptions, c.budget, c.budget_spent, c.budget_remaining,
  c.budget_percentage_used, c.total_discount, c.sales, c.asins, c.reported_at
from rm.coupon_performance c
${completeReads('c', COUPONS_DATASET)}`,
};
