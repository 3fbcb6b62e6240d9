import type { SyncJobDefinition } from './job.js';
import { asPages, dateOfDay, pagesOf, reportsJob, today } from './reports.js';
import { syncScope } from './scope.js';
import { COUPONS_DATASET, PROMOTIONS_DATASET } from '../../domain/observation/datasets.js';

// Coupons (GET_COUPON_PERFORMANCE_REPORT) and promotions (GET_PROMOTION_PERFORMANCE_REPORT)
// that started within the last year, per marketplace (scope: the marketplace id). Their
// totals grow while they run, so every run re-reads them; unchanged pages record nothing.

const PAGE_ROWS = 200;

function dealSync(
  name: string,
  dataset: string,
  reportType: string,
  option: 'coupon' | 'promotion',
  list: 'coupons' | 'promotions',
): SyncJobDefinition {
  return reportsJob({
    name,
    everyMs: 12 * 3_600_000,
    entityType: 'seller',
    plans(deps, account_id, marketplaces) {
      const day = today(deps);
      const from = `${dateOfDay(day - 365)}T00:00:00Z`;
      const to = deps
        .now()
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z');
      return marketplaces.map((marketplace_id) => ({
        key: `${dataset}/${marketplace_id}/${dateOfDay(day)}`,
        api: 'reports' as const,
        create: (client) =>
          client.createReport({
            reportType,
            marketplaceIds: [marketplace_id],
            reportOptions: { [`${option}StartDateFrom`]: from, [`${option}StartDateTo`]: to },
          }),
        async handle(content) {
          const rows = ((content as Record<string, unknown[]> | null)?.[list] ?? []) as unknown[];
          return (
            await syncScope(
              deps.ctx,
              { account_id, dataset, scope: marketplace_id },
              asPages(pagesOf(rows, PAGE_ROWS)),
              deps.now,
            )
          ).recorded;
        },
      }));
    },
  });
}

export const couponsSync = dealSync(
  'coupon-performance',
  COUPONS_DATASET,
  'GET_COUPON_PERFORMANCE_REPORT',
  'coupon',
  'coupons',
);
export const promotionsSync = dealSync(
  'promotion-performance',
  PROMOTIONS_DATASET,
  'GET_PROMOTION_PERFORMANCE_REPORT',
  'promotion',
  'promotions',
);
