import { COUPONS_DATASET, PROMOTIONS_DATASET } from '../../domain/observation/datasets.js';
import { couponRow } from '../../projections/observed/coupons.js';
import type { DealRow } from '../../projections/observed/deals-queries.js';
import { promotionRows } from '../../projections/observed/promotions.js';
import { dealEntry, type Deals } from '../context/deals.js';
import type { PagedHistory } from './pages.js';

// `deals` and `dealsReportedAt` as of a past moment: what activeDeals answers from the read models,
// folded from the coupon and promotion report pages the log held then. Unknown (null) until both
// reports had been read completely for the marketplace; entries the projections would skip are
// skipped here too (read through their own row functions).

type Json = Record<string, unknown>;

export function dealsAsOf(pages: PagedHistory, marketplace_id: string, asins: readonly string[], t: number): Deals {
  const coupons = pages.read(COUPONS_DATASET, marketplace_id, t);
  const promotions = pages.read(PROMOTIONS_DATASET, marketplace_id, t);
  if (!coupons || !promotions) return { deals: null, dealsReportedAt: null };
  const reportedAt = new Date(Math.min(coupons.completed_at, promotions.completed_at)).toISOString();
  const inView = new Set(asins);
  const active = (row: Json) => Date.parse(String(row.starts_at)) <= t && Date.parse(String(row.ends_at)) > t;
  const found: DealRow[] = [];
  const deal = (kind: DealRow['kind'], row: Json): DealRow => ({
    kind,
    raw: JSON.parse(row.raw as string) as Json,
    starts_at: new Date(String(row.starts_at)),
    ends_at: new Date(String(row.ends_at)),
    reported_at: new Date(String(row.reported_at)),
  });
  for (const page of coupons.pages)
    for (const raw of page.rows) {
      const row = couponRow(raw, page.observed_at);
      const covered = row && (JSON.parse(row.asins as string) as string[]).some((a) => inView.has(a));
      if (row && row.marketplace_id === marketplace_id && covered && active(row)) found.push(deal('coupon', row));
    }
  const promoted = new Set<string>();
  for (const page of promotions.pages)
    for (const raw of page.rows)
      for (const row of promotionRows(raw, page.observed_at)) {
        const id = row.promotion_id as string;
        if (row.marketplace_id !== marketplace_id || !inView.has(row.asin as string) || !active(row)) continue;
        if (promoted.has(id)) continue;
        promoted.add(id);
        found.push(deal('promotion', row));
      }
  // the read model's order: by start, coupons before promotions
  found.sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime() || a.kind.localeCompare(b.kind));
  return { deals: found.map((d) => dealEntry(d, inView)), dealsReportedAt: reportedAt };
}
