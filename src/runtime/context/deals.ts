import type { Knex } from 'knex';
import { activeDeals, type ActiveDeals, type DealRow } from '../../projections/observed/deals-queries.js';

// `deals` and `dealsReportedAt` (spec 2.6, 2.8): the coupons and promotions active now that cover
// the ASINs in view, each the report's own entry with its keys unchanged, its products trimmed to
// those ASINs, and the keys every entry shares added. Null (unknown) until both reports were read
// for the marketplace; an empty array once they were and nothing is active.

type Json = Record<string, unknown>;

export interface Deals {
  deals: Json[] | null;
  dealsReportedAt: string | null;
}

/** A report entry trimmed to the ASINs in view, with kind, dates, refresh time and status. */
export function dealEntry(row: DealRow, asins: ReadonlySet<string>): Json {
  const raw = { ...row.raw };
  if (row.kind === 'coupon' && Array.isArray(raw.asins))
    raw.asins = raw.asins.filter((a) => asins.has(String((a as Json | null)?.asin)));
  if (row.kind === 'promotion' && Array.isArray(raw.includedProducts))
    raw.includedProducts = raw.includedProducts.filter((p) => asins.has(String((p as Json | null)?.asin)));
  return {
    ...raw,
    kind: row.kind,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at.toISOString(),
    reportedAt: row.reported_at.toISOString(),
    status: typeof row.raw.status === 'string' ? row.raw.status : null,
  };
}

/** `reports`: when the two reports were read, if the caller read that already (activeDeals). */
export async function dealsFor(
  db: Knex,
  account_id: string,
  marketplace_id: string,
  asins: readonly string[],
  now: Date,
  reports?: readonly unknown[],
): Promise<Deals> {
  return dealsShown(await activeDeals(db, account_id, marketplace_id, asins, now, reports), asins);
}

/** What activeDeals found, as contexts show it. */
export function dealsShown(found: ActiveDeals, asins: readonly string[]): Deals {
  if (found.reported_at === null) return { deals: null, dealsReportedAt: null };
  const inView = new Set(asins);
  return {
    deals: found.deals.map((d) => dealEntry(d, inView)),
    dealsReportedAt: found.reported_at.toISOString(),
  };
}
