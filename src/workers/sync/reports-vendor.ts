import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { asPages, dateOfDay, dayOfDate, pagesOf, reportsJob, today, type ReportPlan } from './reports.js';
import { syncScope } from './scope.js';

// Vendor retail analytics per marketplace, distributor view and day: GET_VENDOR_SALES_REPORT
// and GET_VENDOR_INVENTORY_REPORT in both views, GET_VENDOR_TRAFFIC_REPORT (no views: it is
// the manufacturing view's), at reportPeriod DAY, one report per calendar month, which is the
// scope: `<marketplace>/<manufacturing|sourcing>/<YYYY-MM>` in datasets vendor_sales,
// vendor_inventory and vendor_traffic, in pages of rows (a month of a few ASINs is one page:
// per-day scopes would cost two commands per day, view and report). A day lands two days
// late: the sync reads through the day before yesterday; the first run a year, later runs the
// months of the trailing week again (a partial current month is a complete read of it).

const RESTATE_DAYS = 7;
const PAGE_ROWS = 500;

/** The first and last day of the calendar month containing `day`. */
function monthOf(day: number): { first: number; last: number } {
  const date = new Date(day * 86_400_000);
  const first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 86_400_000;
  return { first, last: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / 86_400_000 - 1 };
}

// Each report once per distributor view it has (traffic has none); its rows are in two lists.
const REPORTS = (
  [
    ['vendor_sales', 'GET_VENDOR_SALES_REPORT', 'sales', ['MANUFACTURING', 'SOURCING']],
    ['vendor_traffic', 'GET_VENDOR_TRAFFIC_REPORT', 'traffic', [null]],
    ['vendor_inventory', 'GET_VENDOR_INVENTORY_REPORT', 'inventory', ['MANUFACTURING', 'SOURCING']],
  ] as const
).flatMap(([dataset, reportType, list, views]) =>
  views.map((view) => ({ dataset, reportType, view, lists: [`${list}Aggregate`, `${list}ByAsin`] })),
);

export const vendorMetricsSync = reportsJob({
  name: 'vendor-metrics',
  everyMs: 12 * 3_600_000,
  entityType: 'vendor',
  async plans(deps, account_id, marketplaces) {
    const lastDay = today(deps) - 2;
    const plans: ReportPlan[] = [];
    for (const marketplace_id of marketplaces) {
      const latest = await deps.db
        .withSchema(READ_MODEL_SCHEMA)
        .table('observed_scopes')
        .where({ account_id, dataset: 'vendor_sales' })
        .andWhere('scope', 'like', `${marketplace_id}/manufacturing/%`)
        .max<{ scope: string | null }>('scope as scope')
        .first();
      const latestMonth = latest?.scope ? dayOfDate(`${latest.scope.slice(-7)}-01`) : null;
      const start = latestMonth === null ? lastDay - 364 : Math.min(latestMonth, lastDay - RESTATE_DAYS + 1);
      for (let month = monthOf(start); month.first <= lastDay; month = monthOf(month.last + 1)) {
        const from = Math.max(month.first, start);
        const to = Math.min(month.last, lastDay);
        const [first, last, yearMonth] = [dateOfDay(from), dateOfDay(to), dateOfDay(month.first).slice(0, 7)];
        for (const report of REPORTS) {
          const view = (report.view ?? 'MANUFACTURING').toLowerCase();
          const scope = `${marketplace_id}/${view}/${yearMonth}`;
          plans.push({
            key: `${report.dataset}/${scope}/${first}/${last}`,
            api: 'reports',
            create: (client) =>
              client.createReport({
                reportType: report.reportType,
                marketplaceIds: [marketplace_id],
                dataStartTime: first,
                dataEndTime: last,
                reportOptions: {
                  reportPeriod: 'DAY',
                  ...(report.view ? { distributorView: report.view, sellingProgram: 'RETAIL' } : {}),
                },
              }),
            async handle(content) {
              const document = (content ?? {}) as Record<string, unknown>;
              const rows = report.lists.flatMap((list) => (document[list] ?? []) as unknown[]);
              return (
                await syncScope(
                  deps.ctx,
                  { account_id, dataset: report.dataset, scope },
                  asPages(pagesOf(rows, PAGE_ROWS)),
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
