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
  STARTS_AT,
  column,
} from './shared.js';
import { PROMOTIONS_DATASET } from '../../domain/observation/datasets.js';

/** The row's product in the promotion: these sum across rows. */
const PRODUCT_TOTALS: ViewColumn[] = [
  count('product_glance_views', true, "views of this product's detail page during the promotion"),
  count('product_units_sold', true, 'units of this product sold at the promotional price'),
  money('product_revenue', true, 'revenue of this product in the promotion'),
];

/** The whole promotion, repeated on each of its rows: never sum them across rows. */
const PROMOTION_TOTALS: ViewColumn[] = [
  count('promotion_glance_views', true, 'the whole promotion; repeated on each of its rows'),
  count('promotion_units_sold', false, 'the whole promotion; repeated on each of its rows'),
  money('promotion_revenue', false, 'the whole promotion; repeated on each of its rows'),
];

// Spec 2.15 shows only the grain; the columns are the promotion report's fields (money in minor units).
export const vPromotionPerformance: ViewDefinition = {
  name: 'v_promotion_performance',
  audience: 'seller',
  grain:
    'one row per promotion per included product (promotion × ASIN), or one row with a null asin for a promotion with none',
  columns: [
    accountId('seller'),
    column('promotion_id', 'text', false, "the marketplace's promotion id"),
    column('asin', 'text', true, 'the included product; null for a promotion without products'),
    MARKETPLACE_ID,
    column('currency', 'text', false, 'ISO 4217 code of the revenue columns'),
    column('promotion_name', 'text', false, 'the customer-facing name'),
    column('type', 'text', false, 'BEST_DEAL, LIGHTNING_DEAL, PRICE_DISCOUNT, ...'),
    column('status', 'text', false, 'APPROVED, PENDING_APPROVAL, NEEDS_YOUR_ATTENTION or CANCELED'),
    column('creation_channel', 'text', false, 'SELF-SERVICE, FULL-SERVICE, AUTOMATED or MANUAL'),
    STARTS_AT,
    column('ends_at', 'timestamptz', false, 'scheduled end, UTC'),
    column('product_name', 'text', true, "the product's name"),
    ...PRODUCT_TOTALS,
    ...PROMOTION_TOTALS,
    column('created_at', 'timestamptz', false, 'when the promotion was created'),
    column('last_updated_at', 'timestamptz', false, 'when the marketplace last updated it'),
    REPORTED_AT,
  ],
  freshness: 'Re-read about twice a day per marketplace; totals are cumulative over the promotion so far.',
  joins: [
    { view: 'v_listings', on: 'account_id, marketplace_id, asin', fanOut: 'several SKUs can share the ASIN' },
    MARKETPLACES_JOIN,
  ],
  warnings: [
    'promotion_* columns repeat on every product row of a promotion: sum product_* columns, or take promotion_* once per promotion_id.',
    MONEY_WARNING,
  ],
  dateColumn: 'starts_at',
  sql: `select p.account_id, p.promotion_id, p.asin, p.marketplace_id, p.currency, p.promotion_name, p.type, p.status, p.creation_channel,
  p.starts_at, p.ends_at, p.product_name, p.product_glance_views, p.product_units_sold, p.product_revenue,
  p.promotion_glance_views, p.promotion_units_sold, p.promotion_revenue, p.created_at, p.last_updated_at, p.reported_at
from rm.promotion_performance p
${completeReads('p', PROMOTIONS_DATASET)}`,
};
