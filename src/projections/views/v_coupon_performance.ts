import { completeReads } from '../observed/economics-support.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_coupon_performance.json' with { type: 'json' };
import { COUPONS_DATASET } from '../../domain/observation/datasets.js';

// Spec 2.15 shows only the grain; the columns are the coupon report's fields (money in minor units).
export const vCouponPerformance: ViewDefinition = {
  ...viewCatalogue(catalogue),
  sql: `select c.account_id, c.coupon_id, c.marketplace_id, c.currency, c.name, c.website_message, c.starts_at, c.ends_at, c.customer_segment,
  c.discount_type, c.discount_percent, c.discount_amount, c.clips, c.redemptions, c.budget, c.budget_spent, c.budget_remaining,
  c.budget_percentage_used, c.total_discount, c.sales, c.asins, c.reported_at
from rm.coupon_performance c
${completeReads('c', COUPONS_DATASET)}`,
};
