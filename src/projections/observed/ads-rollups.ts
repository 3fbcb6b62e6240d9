import type { Knex } from '../../infra/db.js';
import { columnsOf, type TableSpec } from '../tables.js';

// The ads projection's rollup of the daily campaign report: per day scope (`<profile>/<date>`)
// and report date, the sums of its campaigns' rows of the scope's last complete read. A
// profile's totals over 90 days (get_ads_summary, the console's ad spend chart) then read 90
// rows, not every campaign's. The projection keeps its own copy of the scopes' page counts
// (from SyncCompleted), so the rollup follows the log order whatever other projections reached.

export const ADS_ROLLUP_TABLES = { scopes: 'ads_daily_scopes', days: 'ads_profile_days' } as const;

/** The metric columns, named as in the daily table, so one select list sums either. */
const METRICS = ['impressions', 'clicks', 'cost', 'attributed_sales_7d', 'purchases_7d'] as const;

export const ADS_ROLLUP_SPECS: Record<string, TableSpec> = {
  [ADS_ROLLUP_TABLES.scopes]: {
    columns: { account_id: 'uuid', scope: 'text', pages: 'integer' },
    primary: ['account_id', 'scope'],
  },
  [ADS_ROLLUP_TABLES.days]: {
    columns: {
      account_id: 'uuid',
      scope: 'text',
      provider_profile_id: 'text',
      report_date: 'date',
      ...columnsOf(METRICS, 'bigint null'),
    },
    primary: ['account_id', 'scope', 'provider_profile_id', 'report_date'],
  },
};

export interface DailyScope {
  account_id: string;
  scope: string;
}

/** Records the scopes' page counts of their last complete read (the last one given wins). */
export async function recordDailyScopes(
  trx: Knex.Transaction,
  schema: string,
  completed: ReadonlyMap<string, DailyScope & { pages: number }>,
): Promise<void> {
  if (completed.size === 0) return;
  await trx
    .withSchema(schema)
    .table(ADS_ROLLUP_TABLES.scopes)
    .insert([...completed.values()])
    .onConflict(['account_id', 'scope'])
    .merge(['pages']);
}

/** Sums the changed scopes again from `daily`'s rows of pages below each scope's page count (a
 * scope never completed sums nothing). Call it after the scopes' pages and page counts changed. */
export async function refreshProfileDays(
  trx: Knex.Transaction,
  schema: string,
  daily: string,
  changed: ReadonlyMap<string, DailyScope>,
): Promise<void> {
  if (changed.size === 0) return;
  const scopes = [...changed.values()];
  const bindings = [scopes.map((s) => s.account_id), scopes.map((s) => s.scope)];
  const t = (table: string) => `"${schema}"."${table}"`;
  const w = 'unnest(?::uuid[], ?::text[]) w(account_id, scope)';
  await trx.raw(
    `delete from ${t(ADS_ROLLUP_TABLES.days)} p using ${w} where p.account_id = w.account_id and p.scope = w.scope`,
    bindings,
  );
  const keys = 'd.account_id, d.scope, d.provider_profile_id, d.report_date';
  await trx.raw(
    `insert into ${t(ADS_ROLLUP_TABLES.days)} (account_id, scope, provider_profile_id, report_date, ${METRICS.join(', ')})
     select ${keys}, ${METRICS.map((m) => `sum(d.${m})`).join(', ')}
     from ${w}
       join ${t(ADS_ROLLUP_TABLES.scopes)} s on s.account_id = w.account_id and s.scope = w.scope
       join ${t(daily)} d on d.account_id = w.account_id and d.scope = w.scope and d.page < s.pages
     group by ${keys}`,
    bindings,
  );
}
