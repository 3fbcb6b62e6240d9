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

function couponRow(raw: unknown, observedAt: string): Record<string, unknown> | null {
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
  columns(t) {
    for (const c of ['coupon_id', 'marketplace_id', 'currency']) t.text(c).notNullable();
    for (const c of ['name', 'website_message']) t.text(c);
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('ends_at', { useTz: true }).notNullable();
    t.text('customer_segment').notNullable();
    t.text('discount_type');
    t.decimal('discount_percent', null);
    t.bigInteger('discount_amount');
    t.bigInteger('clips').notNullable();
    t.bigInteger('redemptions').notNullable();
    t.bigInteger('budget');
    t.bigInteger('budget_spent').notNullable();
    t.bigInteger('budget_remaining');
    t.decimal('budget_percentage_used', null).notNullable();
    t.bigInteger('total_discount').notNullable();
    t.bigInteger('sales');
    t.jsonb('asins').notNullable();
    t.timestamp('reported_at', { useTz: true }).notNullable();
    t.jsonb('raw').notNullable();
  },
  rows: (page) => page.rows.map((r) => couponRow(r, page.observed_at)),
});
