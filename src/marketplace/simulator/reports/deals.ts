import { minorDigits, type Catalog, type SimListing } from '../catalog.js';
import { MARKETPLACES } from '../marketplaces.js';
import { dateOfDay, dayOf, dayOfWire, keyedRng } from './keyed.js';
import { major, share } from './money.js';
import { fatal, jsonDocument, type ReportRequest, type ReportSource, type ReportType } from './types.js';

// GET_COUPON_PERFORMANCE_REPORT and GET_PROMOTION_PERFORMANCE_REPORT: the seller's coupons and
// promotions whose start falls in the requested range, with totals cumulative through the day
// before the report was requested.

const COUPON_EVERY_DAYS = 12;
const PROMOTION_EVERY_DAYS = 20;
const PICKABLE = 200;

interface Deal {
  slot: number;
  start: number;
  /** last day (inclusive) */
  end: number;
  /** days run so far, up to yesterday */
  daysRun: number;
  rng: ReturnType<typeof keyedRng>;
  listings: SimListing[];
}

/** Deals of one kind in one marketplace starting within [from, to], one per slot of `every` days. */
function dealsIn(
  catalog: Catalog,
  kind: string,
  marketplaceId: string,
  every: number,
  from: number,
  to: number,
  today: number,
  maxProducts: number,
  minProducts: number,
): Deal[] {
  const pickable: SimListing[] = [];
  for (const listing of catalog.listingsIn(marketplaceId)) {
    if (pickable.length >= PICKABLE) break;
    if (listing.status !== 'DELETED') pickable.push(listing);
  }
  if (pickable.length === 0) return [];
  const deals: Deal[] = [];
  for (let slot = Math.floor(from / every); slot <= Math.floor(to / every); slot++) {
    const rng = keyedRng(catalog.seed, kind, marketplaceId, slot);
    const start = slot * every + rng.int(0, every - 1);
    if (start < from || start > to || start > today) continue;
    const end = start + rng.int(3, 30);
    const count = rng.int(minProducts, maxProducts);
    const listings = [
      ...new Map(Array.from({ length: count }, () => rng.pick(pickable)).map((l) => [l.asin, l])).values(),
    ];
    deals.push({ slot, start, end, daysRun: Math.max(0, Math.min(end, today - 1) - start + 1), rng, listings });
  }
  return deals;
}

function range(request: ReportRequest, fromKey: string, toKey: string): { from: number; to: number } | string {
  const from = dayOfWire(request.reportOptions[fromKey]);
  const to = dayOfWire(request.reportOptions[toKey]);
  if (from === undefined || to === undefined) return `reportOptions ${fromKey} and ${toKey} are required date-times.`;
  if (to < from) return `${toKey} is before ${fromKey}.`;
  return { from, to };
}

const iso = (day: number, endOfDay = false) => `${dateOfDay(day)}T${endOfDay ? '23:59:59' : '08:00:00'}Z`;

/**
 * A report of the seller's deals of `kind` (`coupons` or `promotions`) that start in the window
 * its options name, in every marketplace asked, one `row` each.
 */
function dealsReport<R>(
  kind: 'coupon' | 'promotion',
  [fromKey, toKey]: [string, string],
  every: number,
  minProducts: number,
  row: (deal: Deal, marketplaceId: string, source: ReportSource, today: number) => R,
): ReportType {
  return {
    principal: 'seller',
    produce(request, source) {
      const window = range(request, fromKey, toKey);
      if (typeof window === 'string') return fatal(window);
      const today = dayOf(source.asOf);
      const rows = request.marketplaceIds.flatMap((marketplaceId) =>
        dealsIn(source.catalog, kind, marketplaceId, every, window.from, window.to, today, 3, minProducts).map((deal) =>
          row(deal, marketplaceId, source, today),
        ),
      );
      return jsonDocument({
        reportSpecification: {
          reportType: request.reportType,
          reportOptions: request.reportOptions,
          marketplaceIds: request.marketplaceIds,
        },
        [`${kind}s`]: rows,
      });
    },
  };
}

export const couponPerformance = dealsReport(
  'coupon',
  ['couponStartDateFrom', 'couponStartDateTo'],
  COUPON_EVERY_DAYS,
  1,
  ({ slot, start, end, daysRun, rng, listings }, marketplaceId, { catalog, merchantId }) => {
    const currency = listings[0]!.currency;
    const yen = minorDigits(currency) === 0;
    const percent = rng.next() < 0.6;
    const discountAmount = percent ? rng.pick([5, 10, 15, 20]) : yen ? rng.pick([100, 200, 500]) : rng.pick([1, 2, 5]);
    const unitDiscount = percent
      ? share(listings[0]!.price, discountAmount / 100)
      : discountAmount * 10 ** minorDigits(currency);
    const clips = daysRun * rng.int(2, 25);
    const redemptions = Math.floor(clips * (0.2 + rng.next() * 0.3));
    // minor units: $500 to $5,000, or ¥75,000 to ¥750,000
    const budget = rng.int(5, 50) * 100 * (yen ? 150 : 100);
    const totalDiscount = redemptions * unitDiscount;
    const budgetSpent = Math.min(budget, totalDiscount + redemptions * (yen ? 90 : 60));
    return {
      couponId: `A${keyedRng(catalog.seed, 'coupon-id', marketplaceId, slot).chars(13, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`,
      merchantId,
      marketplaceId,
      currencyCode: currency,
      name: percent
        ? `${discountAmount}% off ${listings[0]!.title.split(',')[0]}`
        : `Save on ${listings[0]!.title.split(',')[0]}`,
      websiteMessage: `Save on ${listings[0]!.title.split(' ')[0]} products`,
      startDateTime: iso(start),
      endDateTime: iso(end, true),
      customerSegment: rng.pick(['All (Default)', 'All (Default)', 'Amazon Prime']),
      discountType: percent ? 'PERCENT_OFF_LIST_PRICE' : 'AMOUNT_OFF_LIST_PRICE',
      discountAmount,
      clips,
      redemptions,
      budget: major(budget, currency),
      totalDiscount: major(totalDiscount, currency),
      budgetSpent: major(budgetSpent, currency),
      budgetRemaining: major(budget - budgetSpent, currency),
      budgetPercentageUsed: Math.round((budgetSpent / budget) * 1000) / 10,
      sales: major(redemptions * (listings[0]!.price - unitDiscount), currency),
      asins: listings.map((l) => ({ asin: l.asin })),
    };
  },
);

const PROMOTION_TYPES = ['BEST_DEAL', 'LIGHTNING_DEAL', 'PRICE_DISCOUNT'] as const;

export const promotionPerformance = dealsReport(
  'promotion',
  ['promotionStartDateFrom', 'promotionStartDateTo'],
  PROMOTION_EVERY_DAYS,
  0,
  ({ slot, start, end, daysRun, rng, listings }, marketplaceId, { catalog, merchantId }, today) => {
    const type = rng.pick(PROMOTION_TYPES);
    const currency = MARKETPLACES.find((m) => m.id === marketplaceId)?.currencyCode ?? 'USD';
    const products = listings.map((l) => {
      const units = daysRun * rng.int(0, 6);
      return {
        asin: l.asin,
        productName: l.title,
        productGlanceViews: units * rng.int(8, 30),
        productUnitsSold: units,
        productRevenue: major(units * share(l.price, 0.85), l.currency),
        productRevenueCurrencyCode: l.currency,
      };
    });
    const created = start - rng.int(3, 20);
    return {
      promotionId: String(
        keyedRng(catalog.seed, 'promotion-id', marketplaceId, slot).int(10_000_000_000, 19_999_999_999),
      ),
      promotionName: `${type === 'LIGHTNING_DEAL' ? 'Lightning deal' : type === 'BEST_DEAL' ? 'Best deal' : 'Price discount'}: ${listings[0]?.title.split(',')[0] ?? 'selected products'}`,
      merchantId,
      unitsSold: products.reduce((n, p) => n + p.productUnitsSold, 0),
      revenue:
        Math.round(products.reduce((n, p) => n + p.productRevenue, 0) * 10 ** minorDigits(currency)) /
        10 ** minorDigits(currency),
      revenueCurrencyCode: currency,
      startDateTime: iso(start),
      endDateTime: iso(end, true),
      type,
      status: rng.next() < 0.1 ? 'CANCELED' : 'APPROVED',
      creationChannel: 'SELF-SERVICE',
      marketplaceId,
      glanceViews: products.reduce((n, p) => n + p.productGlanceViews, 0),
      createdDateTime: iso(created),
      lastUpdatedDateTime: iso(Math.max(created, Math.min(today - 1, end))),
      includedProducts: products,
    };
  },
);
