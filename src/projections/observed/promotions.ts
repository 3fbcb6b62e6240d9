import { z } from 'zod';
import { minorUnits } from './economics-support.js';
import { pagedProjection } from './page-table.js';
import { columnsOf } from '../tables.js';
import { PROMOTIONS_DATASET } from '../../domain/observation/datasets.js';

// Promotion performance (dataset `promotion_performance`, GET_PROMOTION_PERFORMANCE_REPORT):
// one row per promotion per included product, or one row with a null asin for a promotion
// without products. The promotion's own totals repeat on each of its product rows.

export const PROMOTIONS_TABLE = 'promotion_performance';

const product = z.object({
  asin: z.string(),
  productName: z.string().optional(),
  productGlanceViews: z.number().int().optional(),
  productUnitsSold: z.number().int(),
  productRevenue: z.number(),
  productRevenueCurrencyCode: z.string(),
});
const promotion = z.object({
  promotionId: z.string(),
  promotionName: z.string(),
  marketplaceId: z.string(),
  type: z.string(),
  status: z.string(),
  creationChannel: z.string(),
  startDateTime: z.string(),
  endDateTime: z.string(),
  createdDateTime: z.string(),
  lastUpdatedDateTime: z.string(),
  glanceViews: z.number().int().optional(),
  unitsSold: z.number().int(),
  revenue: z.number(),
  revenueCurrencyCode: z.string(),
  includedProducts: z.array(product),
});

export function promotionRows(raw: unknown, observedAt: string): Record<string, unknown>[] {
  const parsed = promotion.safeParse(raw);
  if (!parsed.success) return [];
  const p = parsed.data;
  const common = {
    promotion_id: p.promotionId,
    marketplace_id: p.marketplaceId,
    promotion_name: p.promotionName,
    type: p.type,
    status: p.status,
    creation_channel: p.creationChannel,
    starts_at: p.startDateTime,
    ends_at: p.endDateTime,
    currency: p.revenueCurrencyCode,
    promotion_glance_views: p.glanceViews ?? null,
    promotion_units_sold: p.unitsSold,
    promotion_revenue: minorUnits(p.revenue, p.revenueCurrencyCode),
    created_at: p.createdDateTime,
    last_updated_at: p.lastUpdatedDateTime,
    reported_at: observedAt,
    raw: JSON.stringify(raw),
  };
  const none = {
    asin: null,
    product_name: null,
    product_glance_views: null,
    product_units_sold: null,
    product_revenue: null,
  };
  if (p.includedProducts.length === 0) return [{ ...common, ...none }];
  return p.includedProducts.map((i) => ({
    ...common,
    asin: i.asin,
    product_name: i.productName ?? null,
    product_glance_views: i.productGlanceViews ?? null,
    product_units_sold: i.productUnitsSold,
    product_revenue: minorUnits(i.productRevenue, i.productRevenueCurrencyCode),
  }));
}

export const promotionsProjection = pagedProjection({
  name: 'promotion_performance',
  version: 1,
  datasets: [PROMOTIONS_DATASET],
  table: PROMOTIONS_TABLE,
  columns: {
    ...columnsOf(
      ['promotion_id', 'marketplace_id', 'promotion_name', 'type', 'status', 'creation_channel', 'currency'],
      'text',
    ),
    ...columnsOf(['starts_at', 'ends_at', 'created_at', 'last_updated_at', 'reported_at'], 'timestamptz'),
    promotion_glance_views: 'bigint null',
    promotion_units_sold: 'bigint',
    promotion_revenue: 'bigint',
    asin: 'text null',
    product_name: 'text null',
    product_glance_views: 'bigint null',
    product_units_sold: 'bigint null',
    product_revenue: 'bigint null',
    raw: 'jsonb',
  },
  rows: (page) => page.rows.flatMap((r) => promotionRows(r, page.observed_at)),
});
