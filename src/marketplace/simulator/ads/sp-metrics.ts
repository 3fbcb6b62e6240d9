import { daysBetween } from '../../../domain/shared/calendar.js';
import type { SpKeyword, SpTargetingClause } from '../../clients/ads-sp-types.js';
import { roundMoney, type CampaignMetricsParams, type ProfileAds } from './sp-generate.js';
import { rngOf } from './seeded.js';

// A campaign's performance on one profile-local day, as a report generated on `generatedOn`
// states it. The final figures depend on (seed, campaign, day) alone; a report generated in
// the first 14 days after the day states them as the provider does while attribution matures:
// sales and purchases low (rising to the final figure on day 14), clicks and cost slightly high
// for two days until invalid clicks are filtered out.

export interface DailyFigures {
  impressions: number;
  clicks: number;
  /** major units */
  cost: number;
  purchases7d: number;
  sales7d: number;
  purchases14d: number;
  sales14d: number;
}

/** Days after which a day's figures no longer change. */
export const RESTATEMENT_DAYS = 14;
const WEEKDAY = [0.85, 1.05, 1, 1, 1.05, 1.1, 0.9];

const serving = (p: CampaignMetricsParams, date: string) =>
  date >= p.startDate && !p.stops.some((s) => s.from <= date && (s.to === null || date < s.to));

/** Null when the campaign did not serve that day, or the day had not ended when the report was generated. */
export function dailyFigures(
  seed: number,
  campaignId: string,
  p: CampaignMetricsParams,
  date: string,
  generatedOn: string,
  digits: number,
): DailyFigures | null {
  const age = daysBetween(date, generatedOn);
  if (age < 1 || !serving(p, date)) return null;
  const rng = rngOf(seed, campaignId, date);
  const dayOfYear = daysBetween(`${date.slice(0, 4)}-01-01`, date);
  const season = 1 + 0.25 * Math.sin((2 * Math.PI * dayOfYear) / 365);
  const impressions = Math.round(
    p.baseImpressions * WEEKDAY[new Date(`${date}T00:00:00Z`).getUTCDay()]! * season * (0.7 + 0.6 * rng.next()),
  );
  const cpc = Math.max(10 ** -digits, p.bid * p.cpcFactor * (0.9 + 0.2 * rng.next()));
  // the daily budget caps what a day's clicks may cost
  const clicks = Math.min(Math.round(impressions * p.ctr * (0.75 + 0.5 * rng.next())), Math.floor(p.budget / cpc));
  const purchases = Math.round(clicks * p.cvr * (0.5 + rng.next()));
  const sales = purchases * p.unitPrice * (0.9 + 0.2 * rng.next());
  const lateSales = 1 + 0.1 * rng.next();

  const maturity = age >= RESTATEMENT_DAYS ? 1 : 0.55 + (0.45 * (age - 1)) / (RESTATEMENT_DAYS - 1);
  const unfiltered = Math.round(clicks * 0.02 * Math.max(0, 3 - age));
  const reportedClicks = clicks + unfiltered;
  return {
    impressions,
    clicks: reportedClicks,
    cost: roundMoney(reportedClicks * cpc, digits),
    purchases7d: Math.floor(purchases * maturity),
    sales7d: roundMoney(sales * maturity, digits),
    purchases14d: Math.floor(purchases * maturity * lateSales),
    sales14d: roundMoney(sales * maturity * lateSales, digits),
  };
}

export type PositiveTarget =
  { id: string; keyword: SpKeyword; clause?: never } | { id: string; clause: SpTargetingClause; keyword?: never };

/** Each campaign's positive keywords and targeting clauses, in id order: what its days are shared across. */
export function positiveTargets(ads: ProfileAds): Map<string, PositiveTarget[]> {
  const all: Array<PositiveTarget & { campaignId: string }> = [
    ...[...ads.entities.keywords.values()].map((keyword) => ({
      id: keyword.keywordId,
      campaignId: keyword.campaignId,
      keyword,
    })),
    ...[...ads.entities.targets.values()].map((clause) => ({
      id: clause.targetId,
      campaignId: clause.campaignId,
      clause,
    })),
  ];
  const key = (id: string) => id.padStart(20, '0');
  const out = new Map<string, PositiveTarget[]>();
  for (const { campaignId, ...t } of all.sort((a, b) => (key(a.id) < key(b.id) ? -1 : key(a.id) > key(b.id) ? 1 : 0)))
    out.set(campaignId, [...(out.get(campaignId) ?? []), t as PositiveTarget]);
  return out;
}

/**
 * A campaign's day shared out across its positive keywords and targeting clauses (the
 * spTargeting report). Each target's share of traffic, clicks and conversions is drawn from
 * (seed, campaign, target, day); every count and every amount in minor units is apportioned by
 * largest remainder, so the targets' rows add up exactly to the campaign's row. Cost follows the
 * clicks, so a target without clicks costs nothing.
 */
export function targetingFigures(
  seed: number,
  campaignId: string,
  date: string,
  day: DailyFigures,
  targetIds: readonly string[],
  digits: number,
): DailyFigures[] {
  const weights = targetIds.map((targetId) => {
    const rng = rngOf(seed, campaignId, targetId, date, 'targeting');
    const traffic = 0.2 + rng.next();
    const clicks = traffic * (0.5 + rng.next());
    return { traffic, clicks, conversions: clicks * (0.3 + rng.next()) };
  });
  const unit = 10 ** digits;
  const split = (total: number, w: readonly number[]) => apportion(total, w);
  const money = (amount: number, w: readonly number[]) =>
    apportion(Math.round(amount * unit), w).map((minor) => minor / unit);
  const traffic = weights.map((w) => w.traffic);
  const conversions = weights.map((w) => w.conversions);
  const clicks = split(
    day.clicks,
    weights.map((w) => w.clicks),
  );
  const parts = {
    impressions: split(day.impressions, traffic),
    clicks,
    cost: money(day.cost, clicks),
    purchases7d: split(day.purchases7d, conversions),
    sales7d: money(day.sales7d, conversions),
    purchases14d: split(day.purchases14d, conversions),
    sales14d: money(day.sales14d, conversions),
  };
  return targetIds.map(
    (_, i) => Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, v[i]!])) as unknown as DailyFigures,
  );
}

/** Whole `total` shared in proportion to `weights` (largest remainder; equal shares when every weight is zero). */
function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (sum > 0 ? (total * w) / sum : total / weights.length));
  const out = exact.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    out[i]! += 1;
    left -= 1;
  }
  return out;
}
