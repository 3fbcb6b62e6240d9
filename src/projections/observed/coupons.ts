import { z } from 'zod';
import { minorUnits } from './economics-support.js';
import { pagedProjection } from './page-table.js';
import { COUPONS_DATASET } from '../../domain/observation/datasets.js';

// Coupon performance (dataset `coupon_performance`, GET_COUPON_PERFORMANCE_REPORT): one row
// per coupon per marketplace; money (major units in the report) becomes minor units of the
// coupon's currency. discountAmount is a percentage or an amount depending on discountType,
// so it lands in discount_percent or discount_amount.

export const COUPONS_TABLE = 'coupon_performance';

const coupon = z.object({
  couponId: z.string(),
  marketplaceId: z.string(),
  currencyCode: z.string(),
  name: z.string().optional(),
  websiteMessage: z.string().optional(),
  startDateTime: z.string(),
  endDateTime: z.string(),
  customerSegment: z.string(),
  discountType: z.string().optional(),
  discountAmount: z.number().optional(),
  clips: z.number().int(),
  redemptions: z.number().int(),
  budget: z.number().optional(),
  totalDiscount: z.number(),
  budgetSpent: z.number(),
  budgetRemaining: z.number().optional(),
  budgetPercentageUsed: z.number(),
  sales: z.number().optional(),
  asins: z.array(z.object({ asin: z.string() })),
});

export function couponRow(raw: unknown, observedAt: string): Record<string, unknown> | null {
  const parsed = coupon.safeParse(raw);
  if (!parsed.success) return null;
  const c = parsed.data;
  const money = (major: number | undefined) => (major === undefined ? null : minorUnits(major, c.currencyCode));
  const percent = c.discountType === 'PERCENT_OFF_LIST_PRICE';
  return {
    coupon_id: c.couponId,
    marketplace_id: c.marketplaceId,
    currency: c.currencyCode,
    name: c.name ?? null,
    website_message: c.websiteMessage ?? null,
    starts_at: c.startDateTime,
    ends_at: c.endDateTime,
    customer_segment: c.customerSegment,
    discount_type: c.discountType ?? null,
    discount_percent: percent ? (c.discountAmount ?? null) : null,
    discount_amount: percent ? null : money(c.discountAmount),
    clips: c.clips,
    redemptions: c.redemptions,
    budget: money(c.budget),
    budget_spent: money(c.budgetSpent),
    budget_remaining: money(c.budgetRemaining),
    budget_percentage_used: c.budgetPercentageUsed,
    total_discount: money(c.totalDiscount),
    sales: money(c.sales),
    asins: JSON.stringify(c.asins.map((a) => a.asin)),
    reported_at: observedAt,
    raw: JSON.stringify(raw),
  };
}

export const couponsProjection = pagedProjection({
  name: 'coupon_performance',
  version: 1,
  datasets: [COUPONS_DATASET],
  table: COUPONS_TABLE,
  columns: {
    coupon_id: 'text',
    marketplace_id: 'text',
    currency: 'text',
    name: 'text null',
    website_message: 'text null',
    starts_at: 'timestamptz',
    ends_at: 'timestamptz',
    customer_segment: 'text',
    discount_type: 'text null',
    discount_percent: 'numeric null',
    discount_amount: 'bigint null',
    clips: 'bigint',
    redemptions: 'bigint',
    budget: 'bigint null',
    budget_spent: 'bigint',
    budget_remaining: 'bigint null',
    budget_percentage_used: 'numeric',
    total_discount: 'bigint',
    sales: 'bigint null',
    asins: 'jsonb',
    reported_at: 'timestamptz',
    raw: 'jsonb',
  },
  rows: (page) => page.rows.map((r) => couponRow(r, page.observed_at)),
});
