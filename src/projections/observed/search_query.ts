import { z } from 'zod';
import { minorUnits, wireAmount } from './economics-support.js';
import { pagedProjection } from './page-table.js';
import { SQP_DATASET } from '../../domain/observation/datasets.js';

// Search query performance (dataset `search_query_performance`): one row per ASIN per search
// query per closed window. The scope names the marketplace and period
// (`<marketplace>/<PERIOD>/<start>`); median prices become minor units of their currency.

const SQP_TABLE = 'search_query_performance';

const count = z.number().int();
const rate = z.number();
const row = z.object({
  startDate: z.string(),
  endDate: z.string(),
  asin: z.string(),
  searchQueryData: z.object({ searchQuery: z.string(), searchQueryScore: count, searchQueryVolume: count }),
  impressionData: z.object({ totalQueryImpressionCount: count, asinImpressionCount: count, asinImpressionShare: rate }),
  clickData: z.object({
    totalClickCount: count,
    totalClickRate: rate,
    asinClickCount: count,
    asinClickShare: rate,
    totalMedianClickPrice: wireAmount.optional(),
    asinMedianClickPrice: wireAmount.optional(),
  }),
  cartAddData: z.object({
    totalCartAddCount: count,
    totalCartAddRate: rate,
    asinCartAddCount: count,
    asinCartAddShare: rate,
    totalMedianCartAddPrice: wireAmount.optional(),
    asinMedianCartAddPrice: wireAmount.optional(),
  }),
  purchaseData: z.object({
    totalPurchaseCount: count,
    totalPurchaseRate: rate,
    asinPurchaseCount: count,
    asinPurchaseShare: rate,
    totalMedianPurchasePrice: wireAmount.optional(),
    asinMedianPurchasePrice: wireAmount.optional(),
  }),
});

const price = (a: z.infer<typeof wireAmount> | undefined) => (a ? minorUnits(a.amount, a.currencyCode) : null);

function sqpRow(scope: string, raw: unknown): Record<string, unknown> | null {
  const parsed = row.safeParse(raw);
  if (!parsed.success) return null;
  const { searchQueryData: q, impressionData: i, clickData: c, cartAddData: a, purchaseData: p } = parsed.data;
  const [marketplace_id, report_period] = scope.split('/');
  const currency =
    [c.totalMedianClickPrice, c.asinMedianClickPrice, a.totalMedianCartAddPrice, p.totalMedianPurchasePrice].find(
      Boolean,
    )?.currencyCode ?? null;
  return {
    marketplace_id,
    report_period,
    start_date: parsed.data.startDate,
    end_date: parsed.data.endDate,
    asin: parsed.data.asin,
    search_query: q.searchQuery,
    search_query_score: q.searchQueryScore,
    search_query_volume: q.searchQueryVolume,
    currency,
    total_impressions: i.totalQueryImpressionCount,
    asin_impressions: i.asinImpressionCount,
    asin_impression_share: i.asinImpressionShare,
    total_clicks: c.totalClickCount,
    total_click_rate: c.totalClickRate,
    asin_clicks: c.asinClickCount,
    asin_click_share: c.asinClickShare,
    total_median_click_price: price(c.totalMedianClickPrice),
    asin_median_click_price: price(c.asinMedianClickPrice),
    total_cart_adds: a.totalCartAddCount,
    total_cart_add_rate: a.totalCartAddRate,
    asin_cart_adds: a.asinCartAddCount,
    asin_cart_add_share: a.asinCartAddShare,
    total_median_cart_add_price: price(a.totalMedianCartAddPrice),
    asin_median_cart_add_price: price(a.asinMedianCartAddPrice),
    total_purchases: p.totalPurchaseCount,
    total_purchase_rate: p.totalPurchaseRate,
    asin_purchases: p.asinPurchaseCount,
    asin_purchase_share: p.asinPurchaseShare,
    total_median_purchase_price: price(p.totalMedianPurchasePrice),
    asin_median_purchase_price: price(p.asinMedianPurchasePrice),
    raw: JSON.stringify(raw),
  };
}

/** The view's measure columns after the identifying ones: [name, kind]. */
export const SQP_MEASURES: ReadonlyArray<readonly [string, 'count' | 'rate' | 'price']> = [
  ['total_impressions', 'count'],
  ['asin_impressions', 'count'],
  ['asin_impression_share', 'rate'],
  ['total_clicks', 'count'],
  ['total_click_rate', 'rate'],
  ['asin_clicks', 'count'],
  ['asin_click_share', 'rate'],
  ['total_median_click_price', 'price'],
  ['asin_median_click_price', 'price'],
  ['total_cart_adds', 'count'],
  ['total_cart_add_rate', 'rate'],
  ['asin_cart_adds', 'count'],
  ['asin_cart_add_share', 'rate'],
  ['total_median_cart_add_price', 'price'],
  ['asin_median_cart_add_price', 'price'],
  ['total_purchases', 'count'],
  ['total_purchase_rate', 'rate'],
  ['asin_purchases', 'count'],
  ['asin_purchase_share', 'rate'],
  ['total_median_purchase_price', 'price'],
  ['asin_median_purchase_price', 'price'],
];

/** How each kind of measure is kept: a price can be missing, a count or a rate cannot. */
const SQP_COLUMN = { count: 'bigint', rate: 'numeric', price: 'bigint null' } as const;

export const searchQueryProjection = pagedProjection({
  name: 'search_query_performance',
  version: 1,
  datasets: [SQP_DATASET],
  table: SQP_TABLE,
  columns: {
    marketplace_id: 'text',
    report_period: 'text',
    start_date: 'date',
    end_date: 'date',
    asin: 'text',
    search_query: 'text',
    search_query_score: 'integer',
    search_query_volume: 'bigint',
    currency: 'text null',
    ...Object.fromEntries(SQP_MEASURES.map(([name, kind]) => [name, SQP_COLUMN[kind]])),
    raw: 'jsonb',
  },
  rows: (page) => page.rows.map((r) => sqpRow(page.scope, r)),
});
