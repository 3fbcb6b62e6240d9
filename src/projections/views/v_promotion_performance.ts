import { completeReads } from '../observed/economics-support.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_promotion_performance.json' with { type: 'json' };
import { PROMOTIONS_DATASET } from '../../domain/observation/datasets.js';

// Spec 2.15 shows only the grain; the columns are the promotion report's fields (money in minor units).
export const vPromotionPerformance: ViewDefinition = {
  ...viewCatalogue(catalogue),
  sql: `select p.account_id, p.promotion_id, p.asin, p.marketplace_id, p.currency, p.promotion_name, p.type, p.status, p.creation_channel,
  p.starts_at, p.ends_at, p.product_name, p.product_glance_views, p.product_units_sold, p.product_revenue,
  p.promotion_glance_views, p.promotion_units_sold, p.promotion_revenue, p.created_at, p.last_updated_at, p.reported_at
from rm.promotion_performance p
${completeReads('p', PROMOTIONS_DATASET)}`,
};
