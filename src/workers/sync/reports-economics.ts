import {
  asPages,
  dateOfDay,
  latestCompleteDay,
  pagesOf,
  reportsJob,
  syncFrom,
  today,
  type ReportPlan,
} from './reports.js';
import { mapLimited, recordFirstRead, syncScope } from './scope.js';
import { ECONOMICS_DATASET } from '../../domain/observation/datasets.js';

// Seller economics per SKU per day, from the Data Kiosk dataset analytics_economics_2024_03_15
// (aggregated by date DAY and productId MSKU): one query per marketplace per ≤31 days, cut into
// one scope per day (`<marketplace>/<YYYY-MM-DD>`, dataset `seller_economics`). The first run
// reads a year; later runs re-read the trailing seven days, which restate.

const RESTATE_DAYS = 7;
const QUERY_DAYS = 31;
const PAGE_ROWS = 500;
/** Days recorded at once. */
const PARALLEL_DAYS = 8;

const economicsQuery = (marketplaceId: string, from: string, to: string) =>
  `query SellerEconomics { analytics_economics_2024_03_15 { economics(startDate: "${from}", endDate: "${to}", aggregateBy: { date: DAY, productId: MSKU }, marketplaceIds: ["${marketplaceId}"]) {
  startDate endDate marketplaceId parentAsin childAsin fnsku msku
  sales { orderedProductSales { amount currencyCode } netProductSales { amount currencyCode } averageSellingPrice { amount currencyCode } unitsOrdered unitsRefunded netUnitsSold }
  fees { feeTypeName charges { aggregatedDetail { amount { amount currencyCode } amountPerUnit { amount currencyCode } quantity totalAmount { amount currencyCode } } chargeType } }
  netProceeds { total { amount currencyCode } perUnit { amount currencyCode } }
} } }`;

export const economicsSync = reportsJob({
  name: 'seller-economics',
  everyMs: 6 * 3_600_000,
  entityType: 'seller',
  async plans(deps, account_id, marketplaces) {
    const lastDay = today(deps) - 1; // a day is reported from the next day on
    const plans: ReportPlan[] = [];
    for (const marketplace_id of marketplaces) {
      const latest = await latestCompleteDay(deps.db, account_id, ECONOMICS_DATASET, marketplace_id);
      const firstRead = latest === null;
      for (let from = syncFrom(latest, lastDay, RESTATE_DAYS); from <= lastDay; from += QUERY_DAYS) {
        const to = Math.min(lastDay, from + QUERY_DAYS - 1);
        const [first, last] = [dateOfDay(from), dateOfDay(to)];
        plans.push({
          key: `${ECONOMICS_DATASET}/${marketplace_id}/${first}/${last}`,
          api: 'dataKiosk',
          create: (client) => client.createQuery(economicsQuery(marketplace_id, first, last)),
          async handle(content) {
            const byDay = new Map<string, unknown[]>();
            for (const record of (content ?? []) as { startDate?: unknown }[]) {
              const day = String(record.startDate);
              const rows = byDay.get(day) ?? [];
              rows.push(record);
              byDay.set(day, rows);
            }
            // every day of the range, so a day whose rows vanished reads as empty
            const days = Array.from({ length: to - from + 1 }, (_, k) => from + k);
            const recorded = await mapLimited(days, PARALLEL_DAYS, (day) => {
              const key = { account_id, dataset: ECONOMICS_DATASET, scope: `${marketplace_id}/${dateOfDay(day)}` };
              const pages = pagesOf(byDay.get(dateOfDay(day)) ?? [], PAGE_ROWS);
              // a first read (of a year) records its days as new streams, several at once
              return firstRead
                ? recordFirstRead(deps.ctx, key, pages, deps.now, 1)
                : syncScope(deps.ctx, key, asPages(pages), deps.now).then((r) => r.recorded);
            });
            return recorded.reduce((a, b) => a + b, 0);
          },
        });
      }
    }
    return plans;
  },
});
