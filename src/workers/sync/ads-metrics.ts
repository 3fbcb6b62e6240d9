import { addDays, datesFrom, localDate } from '../../domain/shared/calendar.js';
import type { z } from 'zod';
import {
  MAX_REPORT_DAYS,
  spCampaignDailyRowSchema,
  spTargetingDailyRowSchema,
  type CreateReportRequest,
} from '../../marketplace/clients/ads-reporting-types.js';
import { MarketplaceError } from '../../marketplace/clients/index.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { adsContext, type SyncProfile } from './ads-context.js';
import { syncWith, type SyncDeps, type SyncJobDefinition } from './job.js';
import { REPORTS_AT_ONCE, ReportNotReady } from './reports.js';
import { forEachAtOnce, syncScope } from './scope.js';
import { SP_CAMPAIGN_DAILY, SP_TARGETING_DAILY, dailyScope } from '../../domain/observation/datasets.js';

// Daily Sponsored Products metrics, per campaign (spCampaigns) or per keyword and targeting
// clause (spTargeting), one scope per profile and profile-local day
// (`<profileId>/<YYYY-MM-DD>`, through yesterday: today isn't over). A run asks for every day of
// the history not read completely yet (the whole year on the first run) and, always, the
// trailing days the provider still restates, in reports of at most 31 days. It never waits for
// a report: it creates them (an identical request still running is adopted), checks them for a
// few seconds (a few at once), records the finished ones, and fails with ReportNotReady while any is pending,
// so the sync worker runs it again later.

export interface AdsMetricsOptions {
  /** Days of history, yesterday included. */
  historyDays: number;
  /** Days re-read every run because the provider restates them. */
  restatedDays: number;
  /** Pauses between status rounds within one run. */
  pollPausesMs: readonly number[];
}

const DEFAULTS: AdsMetricsOptions = { historyDays: 365, restatedDays: 14, pollPausesMs: [0, 200, 400, 800, 1600] };
/** Report rows per page event. */
const PAGE_ROWS = 500;
/** Day scopes recorded concurrently. */
const DAYS_AT_ONCE = 8;

/** A daily report family: what to ask for, where its days are recorded, how its rows are ordered. */
interface DailyReport {
  job: string;
  dataset: string;
  /** the request's name (its dates follow), grouping and report type; its columns are the row's fields */
  request: { title: string } & Pick<CreateReportRequest['configuration'], 'groupBy' | 'reportTypeId'>;
  row: z.ZodObject & z.ZodType<{ date: string }>;
  /** the order of a day's rows, so an unchanged day pages (and hashes) the same */
  order: (row: Record<string, number>) => number[];
}

const SP_CAMPAIGNS: DailyReport = {
  job: 'ads-campaign-metrics',
  dataset: SP_CAMPAIGN_DAILY,
  request: { title: 'SP campaigns daily', groupBy: ['campaign'], reportTypeId: 'spCampaigns' },
  row: spCampaignDailyRowSchema,
  order: (r) => [r.campaignId!],
};

const SP_TARGETING: DailyReport = {
  job: 'ads-targeting-metrics',
  dataset: SP_TARGETING_DAILY,
  request: { title: 'SP targeting daily', groupBy: ['targeting'], reportTypeId: 'spTargeting' },
  row: spTargetingDailyRowSchema,
  order: (r) => [r.campaignId!, r.adGroupId!, r.keywordId!],
};

interface Window {
  profile: SyncProfile;
  startDate: string;
  endDate: string;
}

export const adsCampaignMetricsSync = (options: Partial<AdsMetricsOptions> = {}) =>
  dailyReportSync(SP_CAMPAIGNS, options);
export const adsTargetingMetricsSync = (options: Partial<AdsMetricsOptions> = {}) =>
  dailyReportSync(SP_TARGETING, options);

export const adsCampaignMetrics = adsCampaignMetricsSync();
export const adsTargetingMetrics = adsTargetingMetricsSync();

function dailyReportSync(report: DailyReport, options: Partial<AdsMetricsOptions>): SyncJobDefinition {
  const o = { ...DEFAULTS, ...options };
  return syncWith(adsContext, {
    name: report.job,
    everyMs: 3 * 3_600_000,
    async run(deps, account_id, ads) {
      const complete = await completeDays(deps, account_id, report.dataset);
      const open = new Map<Window, string>();
      for (const profile of ads.profiles) {
        const yesterday = addDays(localDate(deps.now(), profile.timezone), -1);
        const restatedFrom = addDays(yesterday, 1 - o.restatedDays);
        const wanted = datesFrom(addDays(yesterday, 1 - o.historyDays), yesterday).filter(
          (d) => d >= restatedFrom || !complete.has(dailyScope(profile.provider_profile_id, d)),
        );
        for (const window of windows(profile, wanted)) {
          open.set(
            window,
            (await ads.client.reporting.createReport(profile.provider_profile_id, reportRequest(report, window)))
              .reportId,
          );
        }
      }
      let recorded = 0;
      for (const pause of o.pollPausesMs) {
        if (open.size === 0) break;
        if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
        await forEachAtOnce([...open], REPORTS_AT_ONCE, async ([window, reportId]) => {
          const status = await ads.client.reporting.getReport(window.profile.provider_profile_id, reportId);
          if (status.status === 'FAILED')
            deps.logger.warn(
              { account_id, reportId, reason: status.failureReason },
              'ads report failed at the marketplace; its days stay unread',
            );
          else if (status.status === 'COMPLETED' && status.url) {
            const rows = await ads.client.reporting.downloadReport(status.url);
            // awaited before the sum is read: reports are recorded a few at once
            const windowRecorded = await recordWindow(deps, account_id, report, window, rows);
            recorded += windowRecorded;
          } else return;
          open.delete(window);
        });
      }
      if (open.size > 0)
        throw new ReportNotReady(
          `${open.size} ads report(s) not done yet (${[...open.values()].slice(0, 3).join(', ')})`,
        );
      return { recorded };
    },
  });
}

/** Day scopes read completely at least once. */
async function completeDays(deps: SyncDeps, account_id: string, dataset: string): Promise<Set<string>> {
  const rows: { scope: string }[] = await deps.db
    .withSchema(READ_MODEL_SCHEMA)
    .table('observed_scopes')
    .where({ account_id, dataset })
    .select('scope');
  return new Set(rows.map((r) => r.scope));
}

/** Runs of consecutive dates, cut at the longest window a report may cover. */
function windows(profile: SyncProfile, dates: readonly string[]): Window[] {
  const out: Window[] = [];
  for (const date of dates) {
    const last = out.at(-1);
    if (last && addDays(last.endDate, 1) === date && datesFrom(last.startDate, date).length <= MAX_REPORT_DAYS)
      last.endDate = date;
    else out.push({ profile, startDate: date, endDate: date });
  }
  return out;
}

const reportRequest = ({ request, row }: DailyReport, w: Window): CreateReportRequest => ({
  name: `${request.title} ${w.startDate}..${w.endDate}`,
  startDate: w.startDate,
  endDate: w.endDate,
  configuration: {
    adProduct: 'SPONSORED_PRODUCTS',
    groupBy: request.groupBy,
    columns: row.keyof().options,
    reportTypeId: request.reportTypeId,
    timeUnit: 'DAILY',
    format: 'GZIP_JSON',
  },
});

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** Records every day of the window as a complete read of its scope: a day without rows too. */
async function recordWindow(
  deps: SyncDeps,
  account_id: string,
  report: DailyReport,
  w: Window,
  rows: unknown[],
): Promise<number> {
  const byDate = new Map<string, unknown[]>();
  for (const row of rows) {
    const parsed = report.row.safeParse(row);
    if (!parsed.success)
      throw new MarketplaceError({
        status: 200,
        code: 'invalid_response',
        message: `ads report row: ${parsed.error.issues[0]?.message}`,
        retryable: false,
      });
    byDate.set(parsed.data.date, [...(byDate.get(parsed.data.date) ?? []), row]);
  }
  // days are separate scopes (separate streams): a few at a time
  const days = datesFrom(w.startDate, w.endDate);
  let next = 0;
  let recorded = 0;
  const worker = async () => {
    for (let date = days[next++]; date !== undefined; date = days[next++]) {
      const rowsOfDay = (byDate.get(date) ?? []).sort((a, b) =>
        compareKeys(report.order(a as Record<string, number>), report.order(b as Record<string, number>)),
      );
      const day = await syncScope(
        deps.ctx,
        { account_id, dataset: report.dataset, scope: dailyScope(w.profile.provider_profile_id, date) },
        pagesOf(rowsOfDay),
        deps.now,
      );
      recorded += day.recorded;
    }
  };
  await Promise.all(Array.from({ length: DAYS_AT_ONCE }, worker));
  return recorded;
}

async function* pagesOf(rows: unknown[]): AsyncIterable<unknown[]> {
  for (let i = 0; i < rows.length; i += PAGE_ROWS) yield rows.slice(i, i + PAGE_ROWS);
}
