import { dayNumber, isDate, keyedRng } from './keyed.js';
import { share, wireAmount } from './money.js';
import { fatal, jsonDocument, type ReportType } from './types.js';

// GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT: per ASIN, the search queries that led
// shoppers to it in one closed reporting window (WEEK: Sunday to Saturday, MONTH, QUARTER).
// reportOptions.asin takes one ASIN or several separated by spaces.

export const SQP_PERIODS = ['WEEK', 'MONTH', 'QUARTER'] as const;
export type SqpPeriod = (typeof SQP_PERIODS)[number];

/** The window of `period` that contains `day`: first and last day. */
export function sqpWindow(period: SqpPeriod, day: number): { start: number; end: number } {
  if (period === 'WEEK') {
    const start = day - ((day + 4) % 7); // 1970-01-01 was a Thursday: (day + 4) % 7 is 0 on Sundays
    return { start, end: start + 6 };
  }
  const date = new Date(day * 86_400_000);
  const months = period === 'MONTH' ? 1 : 3;
  const firstMonth = date.getUTCMonth() - (date.getUTCMonth() % months);
  const start = Date.UTC(date.getUTCFullYear(), firstMonth, 1) / 86_400_000;
  const end = Date.UTC(date.getUTCFullYear(), firstMonth + months, 1) / 86_400_000 - 1;
  return { start, end };
}

const WORDS = [
  'set',
  'for women',
  'for men',
  'large',
  'small',
  'gift',
  'pack',
  'best',
  'cheap',
  'premium',
  'travel',
  'kids',
];

export const searchQueryPerformance: ReportType = {
  principal: 'seller',
  produce(request, { catalog, asOf }) {
    const period = request.reportOptions.reportPeriod as SqpPeriod;
    if (!SQP_PERIODS.includes(period)) return fatal(`reportPeriod must be one of ${SQP_PERIODS.join(', ')}`);
    if (request.marketplaceIds.length !== 1)
      return fatal('This report type supports only one marketplaceId per report.');
    const start = request.dataStartTime?.slice(0, 10);
    const end = request.dataEndTime?.slice(0, 10);
    if (!isDate(start) || !isDate(end)) return fatal('dataStartTime and dataEndTime are required dates.');
    const window = sqpWindow(period, dayNumber(start));
    if (window.start !== dayNumber(start) || window.end !== dayNumber(end))
      return fatal(`The dates must span exactly one ${period}.`);
    if (window.end >= Math.floor(asOf / 86_400_000)) return { kind: 'empty' }; // the window isn't closed yet
    const marketplaceId = request.marketplaceIds[0]!;
    const asins = new Set((request.reportOptions.asin ?? '').split(/\s+/).filter(Boolean));
    const seen = new Set<string>();
    const dataByAsin: unknown[] = [];
    for (const listing of catalog.listingsIn(marketplaceId)) {
      if (!asins.has(listing.asin) || seen.has(listing.asin)) continue;
      seen.add(listing.asin);
      const product = catalog.productByAsin(listing.asin)!;
      const noun = product.title.split(', ')[0]!.split(' ').slice(-2).join(' ').toLowerCase();
      const rng = keyedRng(catalog.seed, 'sqp', marketplaceId, listing.asin, period, start);
      const days = window.end - window.start + 1;
      const queries = [
        noun,
        `${product.brand.toLowerCase()} ${noun}`,
        ...Array.from({ length: rng.int(1, 3) }, () => `${noun} ${rng.pick(WORDS)}`),
      ];
      const money = (minor: number) => wireAmount(minor, listing.currency);
      [...new Set(queries)].forEach((searchQuery, rank) => {
        const volume = rng.int(50, 400) * days;
        const impressions = volume * rng.int(8, 20);
        const asinImpressions = Math.floor(impressions * rng.next() * 0.1);
        const clicks = Math.floor(volume * (0.3 + rng.next() * 0.5));
        const asinClicks = Math.floor(clicks * rng.next() * 0.15);
        const cartAdds = Math.floor(clicks * (0.1 + rng.next() * 0.2));
        const asinCartAdds = Math.floor(cartAdds * rng.next() * 0.2);
        const purchases = Math.floor(cartAdds * (0.3 + rng.next() * 0.4));
        const asinPurchases = Math.floor(purchases * rng.next() * 0.25);
        const median = share(listing.price, 0.8 + rng.next() * 0.4);
        const rate = (n: number) => Math.round((n / volume) * 10_000) / 10_000;
        const ratio = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * 10_000) / 10_000);
        const shipping = (n: number) => [Math.floor(n * 0.1), Math.floor(n * 0.3), Math.floor(n * 0.4)] as const;
        const [clickSame, clickOne, clickTwo] = shipping(clicks);
        const [cartSame, cartOne, cartTwo] = shipping(cartAdds);
        const [buySame, buyOne, buyTwo] = shipping(purchases);
        dataByAsin.push({
          startDate: start,
          endDate: end,
          asin: listing.asin,
          searchQueryData: { searchQuery, searchQueryScore: rank + 1, searchQueryVolume: volume },
          impressionData: {
            totalQueryImpressionCount: impressions,
            asinImpressionCount: asinImpressions,
            asinImpressionShare: ratio(asinImpressions, impressions),
          },
          clickData: {
            totalClickCount: clicks,
            totalClickRate: rate(clicks),
            asinClickCount: asinClicks,
            asinClickShare: ratio(asinClicks, clicks),
            totalMedianClickPrice: money(median),
            asinMedianClickPrice: money(listing.price),
            totalSameDayShippingClickCount: clickSame,
            totalOneDayShippingClickCount: clickOne,
            totalTwoDayShippingClickCount: clickTwo,
          },
          cartAddData: {
            totalCartAddCount: cartAdds,
            totalCartAddRate: rate(cartAdds),
            asinCartAddCount: asinCartAdds,
            asinCartAddShare: ratio(asinCartAdds, cartAdds),
            totalMedianCartAddPrice: money(median),
            asinMedianCartAddPrice: money(listing.price),
            totalSameDayShippingCartAddCount: cartSame,
            totalOneDayShippingCartAddCount: cartOne,
            totalTwoDayShippingCartAddCount: cartTwo,
          },
          purchaseData: {
            totalPurchaseCount: purchases,
            totalPurchaseRate: rate(purchases),
            asinPurchaseCount: asinPurchases,
            asinPurchaseShare: ratio(asinPurchases, purchases),
            totalMedianPurchasePrice: money(median),
            asinMedianPurchasePrice: money(listing.price),
            totalSameDayShippingPurchaseCount: buySame,
            totalOneDayShippingPurchaseCount: buyOne,
            totalTwoDayShippingPurchaseCount: buyTwo,
          },
        });
      });
    }
    return jsonDocument({
      reportSpecification: {
        reportType: request.reportType,
        reportOptions: request.reportOptions,
        dataStartTime: start,
        dataEndTime: end,
        marketplaceIds: request.marketplaceIds,
      },
      dataByAsin,
    });
  },
};
