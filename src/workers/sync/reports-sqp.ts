import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import type { SyncDeps } from './job.js';
import { asPages, dateOfDay, reportsJob, today, type ReportPlan } from './reports.js';
import { syncScope } from './scope.js';
import { SQP_DATASET } from '../../domain/observation/datasets.js';

// Search query performance (GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT) per closed
// window: the last 52 weeks (Sunday to Saturday), 12 months and 4 quarters, each read once
// (a closed window doesn't change), scope `<marketplace>/<PERIOD>/<start date>`. The report
// takes at most 200 characters of ASINs: it covers the marketplace's 18 best-selling ASINs of
// the last year by net units (from seller_economics, so it follows the economics sync).

const PERIODS = { WEEK: 52, MONTH: 12, QUARTER: 4 } as const;
type Period = keyof typeof PERIODS;
const MAX_ASINS = 18;

/** The window of `period` containing `day` (days since 1970-01-01, a Thursday). */
export function windowOf(period: Period, day: number): { start: number; end: number } {
  if (period === 'WEEK') {
    const start = day - ((day + 4) % 7);
    return { start, end: start + 6 };
  }
  const date = new Date(day * 86_400_000);
  const months = period === 'MONTH' ? 1 : 3;
  const first = date.getUTCMonth() - (date.getUTCMonth() % months);
  return {
    start: Date.UTC(date.getUTCFullYear(), first, 1) / 86_400_000,
    end: Date.UTC(date.getUTCFullYear(), first + months, 1) / 86_400_000 - 1,
  };
}

/** The last `count` windows of `period` that ended before `todayDay`, newest first. */
export function closedWindows(period: Period, todayDay: number, count: number): { start: number; end: number }[] {
  const windows = [];
  let w = windowOf(period, todayDay);
  while (windows.length < count) {
    w = windowOf(period, w.start - 1);
    windows.push(w);
  }
  return windows;
}

async function topAsins(deps: SyncDeps, account_id: string, marketplace_id: string, since: string): Promise<string[]> {
  const rows = await deps.db
    .withSchema(READ_MODEL_SCHEMA)
    .table('seller_economics')
    .where({ account_id, marketplace_id })
    .andWhere('date', '>=', since)
    .groupBy('asin')
    .select('asin')
    .orderByRaw('sum(net_units_sold) desc, asin')
    .limit(MAX_ASINS);
  return rows.map((r: { asin: string }) => r.asin);
}

export const searchQuerySync = reportsJob({
  name: 'search-query-performance',
  everyMs: 24 * 3_600_000,
  entityType: 'seller',
  async plans(deps, account_id, marketplaces) {
    const day = today(deps);
    const done = new Set(
      (
        await deps.db
          .withSchema(READ_MODEL_SCHEMA)
          .table('observed_scopes')
          .where({ account_id, dataset: SQP_DATASET })
          .select('scope')
      ).map((r: { scope: string }) => r.scope),
    );
    const plans: ReportPlan[] = [];
    for (const marketplace_id of marketplaces) {
      const asins = await topAsins(deps, account_id, marketplace_id, dateOfDay(day - 365));
      if (asins.length === 0) continue;
      for (const period of Object.keys(PERIODS) as Period[]) {
        for (const window of closedWindows(period, day, PERIODS[period])) {
          const [start, end] = [dateOfDay(window.start), dateOfDay(window.end)];
          const scope = `${marketplace_id}/${period}/${start}`;
          if (done.has(scope)) continue;
          plans.push({
            key: `${SQP_DATASET}/${scope}`,
            api: 'reports',
            create: (client) =>
              client.createReport({
                reportType: 'GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT',
                marketplaceIds: [marketplace_id],
                dataStartTime: start,
                dataEndTime: end,
                reportOptions: { reportPeriod: period, asin: asins.join(' ') },
              }),
            async handle(content) {
              const rows = ((content as { dataByAsin?: unknown[] } | null)?.dataByAsin ?? []) as unknown[];
              return (
                await syncScope(
                  deps.ctx,
                  { account_id, dataset: SQP_DATASET, scope },
                  asPages(rows.length > 0 ? [rows] : []),
                  deps.now,
                )
              ).recorded;
            },
          });
        }
      }
    }
    return plans;
  },
});
