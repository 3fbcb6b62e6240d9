import { randomBytes, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { datesFrom, daysBetween } from '../../../domain/shared/calendar.js';
import {
  createReportRequestSchema,
  MAX_REPORT_DAYS,
  REPORT_MEDIA_TYPE,
  type CreateReportRequest,
  type Report,
} from '../../clients/ads-reporting-types.js';
import { roundMoney, type ProfileAds } from './sp-generate.js';
import {
  dailyFigures,
  positiveTargets,
  targetingFigures,
  type DailyFigures,
  type PositiveTarget,
} from './sp-metrics.js';
import type { AdsState } from './sp-state.js';
import { hasMediaType, scopedProfile } from './scope.js';

/** Reports kept (the real service keeps them some days). */
const REPORT_LIMIT = 5_000;

// Asynchronous reporting v3 for spCampaigns and spTargeting (a campaign's day shared out across
// its keywords and targeting clauses, summing to the campaign's row): POST /reporting/reports
// answers PENDING, status polls move it on (PROCESSING, then COMPLETED with a pre-signed
// `url`), and the document is gzip-compressed JSON. A report states its days as of the day it was requested (profile-local,
// by the simulator's clock), so recent days restate between reports. Identical requests while
// one is in progress answer 425 naming it, like the provider.

const METRIC_COLUMNS = [
  'impressions',
  'clicks',
  'cost',
  'spend',
  'costPerClick',
  'clickThroughRate',
  'purchases7d',
  'sales7d',
  'purchases14d',
  'sales14d',
];
const CAMPAIGN_COLUMNS = [
  'campaignId',
  'campaignName',
  'campaignStatus',
  'campaignBudgetAmount',
  'campaignBudgetType',
  'campaignBudgetCurrencyCode',
];
/** Each report type this simulator serves: its one groupBy and the columns it may ask for. */
const REPORT_TYPES: Readonly<
  Record<string, { groupBy: string; columns: readonly string[]; filters: readonly string[] }>
> = {
  spCampaigns: {
    groupBy: 'campaign',
    columns: ['date', 'startDate', 'endDate', ...CAMPAIGN_COLUMNS, ...METRIC_COLUMNS],
    filters: ['campaignStatus'],
  },
  spTargeting: {
    groupBy: 'targeting',
    columns: [
      'date',
      'startDate',
      'endDate',
      ...CAMPAIGN_COLUMNS,
      'adGroupId',
      'adGroupName',
      'keywordId',
      'keyword',
      'targeting',
      'keywordType',
      'matchType',
      'adKeywordStatus',
      'keywordBid',
      ...METRIC_COLUMNS,
    ],
    filters: ['keywordType'],
  },
};
const URL_TTL_MS = 3_600_000;

/** How reports progress; tests change it through /_sim/ads/reporting. */
export interface ReportingControl {
  /** while true, reports stay PENDING */
  hold: boolean;
  /** status polls a report answers PROCESSING before COMPLETED */
  pendingPolls: number;
}

interface SimReport {
  report: Report;
  profileId: string;
  request: CreateReportRequest;
  /** what makes two requests identical (all but the name) */
  key: string;
  /** the profile-local day the report was requested: its figures are as of then */
  generatedOn: string;
  polls: number;
  signature: string;
  document?: Buffer;
}

export interface Reporting {
  control: ReportingControl;
  list(): Array<
    Pick<SimReport, 'profileId' | 'generatedOn' | 'polls'> & {
      reportId: string;
      status: string;
      startDate: string;
      endDate: string;
    }
  >;
}

const reportingError = (code: string, detail: string) => ({ code, detail });

export function registerReportingRoutes(
  scope: FastifyInstance,
  state: AdsState,
  guards: preHandlerAsyncHookHandler[],
): Reporting {
  const reports = new Map<string, SimReport>();
  const control: ReportingControl = { hold: false, pendingPolls: 1 };
  const route = { config: { api: 'ads' as const }, preHandler: guards };
  const iso = () => new Date(state.now()).toISOString();

  scope.post('/reporting/reports', route, async (request, reply) => {
    if (!hasMediaType(request, reply, REPORT_MEDIA_TYPE)) return reply;
    const parsed = createReportRequestSchema.safeParse(request.body);
    if (!parsed.success)
      return reply
        .code(400)
        .send(reportingError('400', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')));
    const invalid = validate(parsed.data);
    if (invalid) return reply.code(400).send(reportingError('400', invalid));
    const ads = scopedProfile(request);
    // zod's output lists keys in schema order, so equal requests serialize equally
    const key = JSON.stringify([parsed.data.startDate, parsed.data.endDate, parsed.data.configuration]);
    for (const r of reports.values()) {
      if (r.profileId === ads.profileId && r.key === key && !['COMPLETED', 'FAILED'].includes(r.report.status)) {
        return reply.code(425).send(reportingError('425', `The Request is a duplicate of : ${r.report.reportId}`));
      }
    }
    const reportId = randomUUID();
    const report: Report = {
      reportId,
      name: parsed.data.name ?? null,
      status: 'PENDING',
      startDate: parsed.data.startDate,
      endDate: parsed.data.endDate,
      configuration: { ...parsed.data.configuration, filters: parsed.data.configuration.filters ?? null },
      createdAt: iso(),
      updatedAt: iso(),
      generatedAt: null,
      fileSize: null,
      url: null,
      urlExpiresAt: null,
      failureReason: null,
    };
    reports.set(reportId, {
      report,
      profileId: ads.profileId,
      request: parsed.data,
      key,
      generatedOn: state.today(ads),
      polls: 0,
      signature: randomBytes(16).toString('hex'),
    });
    // the oldest reports go first, so a long run keeps a bounded list
    if (reports.size > REPORT_LIMIT) reports.delete(reports.keys().next().value!);
    return report;
  });

  scope.get<{ Params: { reportId: string } }>('/reporting/reports/:reportId', route, async (request, reply) => {
    const r = reports.get(request.params.reportId);
    if (!r || r.profileId !== scopedProfile(request).profileId)
      return reply.code(404).send(reportingError('404', `report ${request.params.reportId} not found`));
    if (!control.hold && (r.report.status === 'PENDING' || r.report.status === 'PROCESSING')) {
      r.polls += 1;
      if (r.polls > control.pendingPolls) {
        r.document = gzipSync(JSON.stringify(documentRows(state, scopedProfile(request), r)));
        const expires = state.now() + URL_TTL_MS;
        Object.assign(r.report, {
          status: 'COMPLETED',
          generatedAt: iso(),
          fileSize: r.document.length,
          url: `${request.protocol}://${request.host}/reporting-documents/${r.report.reportId}.json.gz?X-Amz-Expires=3600&X-Amz-Signature=${r.signature}`,
          urlExpiresAt: new Date(expires).toISOString(),
        });
      } else r.report.status = 'PROCESSING';
      r.report.updatedAt = iso();
    }
    return r.report;
  });

  // The pre-signed download: no ads API headers, like the storage URL the provider hands out.
  scope.get<{ Params: { file: string }; Querystring: { 'X-Amz-Signature'?: string } }>(
    '/reporting-documents/:file',
    { config: { api: 'ads' } },
    async (request, reply) => {
      const r = reports.get(request.params.file.replace(/\.json\.gz$/, ''));
      if (!r?.document || request.query['X-Amz-Signature'] !== r.signature)
        return reply
          .code(403)
          .type('application/xml')
          .send('<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>');
      if (state.now() > Date.parse(r.report.urlExpiresAt!))
        return reply
          .code(403)
          .type('application/xml')
          .send('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      return reply.type('application/octet-stream').send(r.document);
    },
  );

  return {
    control,
    list: () =>
      [...reports.values()].map((r) => ({
        reportId: r.report.reportId,
        status: r.report.status,
        profileId: r.profileId,
        startDate: r.report.startDate,
        endDate: r.report.endDate,
        generatedOn: r.generatedOn,
        polls: r.polls,
      })),
  };
}

function validate(request: CreateReportRequest): string | null {
  const c = request.configuration;
  const type = REPORT_TYPES[c.reportTypeId];
  if (!type)
    return `reportTypeId ${c.reportTypeId} is not supported here; use ${Object.keys(REPORT_TYPES).join(' or ')}`;
  if (c.groupBy.length !== 1 || c.groupBy[0] !== type.groupBy) return `groupBy must be ["${type.groupBy}"]`;
  const allowed = type.columns.filter((col) =>
    c.timeUnit === 'DAILY' ? col !== 'startDate' && col !== 'endDate' : col !== 'date',
  );
  const bad = c.columns.filter((col) => !allowed.includes(col));
  if (bad.length)
    return `configuration columns includes invalid values: (${bad.join(', ')}). Allowed values: (${allowed.join(', ')})`;
  const span = daysBetween(request.startDate, request.endDate);
  if (span < 0) return 'startDate must not be after endDate';
  if (span >= MAX_REPORT_DAYS) return `the date range may cover at most ${MAX_REPORT_DAYS} days`;
  const unknownFilter = (c.filters ?? []).find((f) => !type.filters.includes(f.field));
  if (unknownFilter) return `filter field ${unknownFilter.field} is not supported`;
  return null;
}

type Row = Record<string, string | number>;

/** One row of the report before grouping by time: what identifies it, and its figures per day. */
interface Unit {
  base: Row;
  days: Array<{ date: string; figures: DailyFigures }>;
}

function documentRows(state: AdsState, ads: ProfileAds, r: SimReport): Row[] {
  const { configuration: c, startDate, endDate } = r.request;
  const statuses = c.filters?.find((f) => f.field === 'campaignStatus')?.values;
  const campaigns = [...ads.entities.campaigns.values()]
    .filter((campaign) => !statuses || statuses.includes(campaign.state))
    .sort(byKey((x) => x.campaignId));
  const targets = c.reportTypeId === 'spTargeting' ? targetsByCampaign(ads) : null;
  const keywordTypes = c.filters?.find((f) => f.field === 'keywordType')?.values;
  const units: Unit[] = [];
  for (const campaign of campaigns) {
    const params = ads.metrics.get(campaign.campaignId);
    if (!params) continue;
    const days = datesFrom(startDate, endDate).flatMap((date) => {
      const figures = dailyFigures(state.seed, campaign.campaignId, params, date, r.generatedOn, ads.digits);
      return figures ? [{ date, figures }] : [];
    });
    const base: Row = {
      campaignId: Number(campaign.campaignId),
      campaignName: campaign.name,
      campaignStatus: campaign.state,
      campaignBudgetAmount: campaign.budget.budget,
      campaignBudgetType: campaign.budget.budgetType,
      campaignBudgetCurrencyCode: ads.currency,
    };
    if (!targets) {
      units.push({ base, days });
      continue;
    }
    // the day is shared across every target of the campaign, whatever the filter keeps
    const all = targets.get(campaign.campaignId) ?? [];
    const shares = days.map((d) =>
      targetingFigures(
        state.seed,
        campaign.campaignId,
        d.date,
        d.figures,
        all.map((t) => String(t.keywordId)),
        ads.digits,
      ),
    );
    all.forEach((t, i) => {
      if (!keywordTypes || keywordTypes.includes(String(t.keywordType)))
        units.push({ base: { ...base, ...t }, days: days.map((d, k) => ({ date: d.date, figures: shares[k]![i]! })) });
    });
  }
  const rows: Row[] = [];
  for (const { base, days } of units) {
    const grouped =
      c.timeUnit === 'DAILY'
        ? days.map((d) => ({ ...base, date: d.date, ...metrics(d.figures, ads.digits) }))
        : days.length
          ? [{ ...base, startDate, endDate, ...metrics(sum(days.map((d) => d.figures)), ads.digits) }]
          : [];
    for (const full of grouped) rows.push(Object.fromEntries(c.columns.map((col) => [col, (full as Row)[col]!])));
  }
  return c.timeUnit === 'DAILY' ? rows.sort(byKey((x) => x.date as string)) : rows;
}

const byKey =
  <T>(key: (x: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/** The provider's names for the auto-targeting buckets, as the targeting column states them. */
const AUTO_TARGETING: Readonly<Record<string, string>> = {
  QUERY_HIGH_REL_MATCHES: 'close-match',
  QUERY_BROAD_REL_MATCHES: 'loose-match',
  ASIN_SUBSTITUTE_RELATED: 'substitutes',
  ASIN_ACCESSORY_RELATED: 'complements',
};

const expressionText = (expression: ReadonlyArray<{ type: string; value?: string }>) =>
  expression
    .map(
      (p) =>
        AUTO_TARGETING[p.type] ??
        `${
          p.type === 'ASIN_SAME_AS'
            ? 'asin'
            : p.type
                .replace(/^ASIN_/, '')
                .replace(/_SAME_AS$/, '')
                .toLowerCase()
        }="${p.value ?? ''}"`,
    )
    .join(' ');

/** Each campaign's positive targets as spTargeting rows state them (`keywordId` holds a clause's id too). */
function targetsByCampaign(ads: ProfileAds): Map<string, Row[]> {
  const adGroup = (id: string) => ads.entities.adGroups.get(id);
  const row = (t: PositiveTarget): Row => {
    const e = t.keyword ?? t.clause;
    const type = t.keyword
      ? t.keyword.matchType
      : t.clause.expressionType === 'AUTO'
        ? 'TARGETING_EXPRESSION_PREDEFINED'
        : 'TARGETING_EXPRESSION';
    const text = t.keyword ? t.keyword.keywordText : expressionText(t.clause.expression);
    return {
      adGroupId: Number(e.adGroupId),
      adGroupName: adGroup(e.adGroupId)?.name ?? '',
      keywordId: Number(t.id),
      keyword: text,
      targeting: text,
      keywordType: type,
      matchType: type,
      adKeywordStatus: e.state,
      keywordBid: e.bid ?? adGroup(e.adGroupId)?.defaultBid ?? 0,
    };
  };
  return new Map([...positiveTargets(ads)].map(([campaignId, targets]) => [campaignId, targets.map(row)]));
}

function metrics(f: DailyFigures, digits: number) {
  const round = (x: number) => roundMoney(x, digits);
  return {
    ...f,
    cost: round(f.cost),
    sales7d: round(f.sales7d),
    sales14d: round(f.sales14d),
    spend: round(f.cost),
    costPerClick: f.clicks ? round(f.cost / f.clicks) : 0,
    clickThroughRate: f.impressions ? Math.round((f.clicks / f.impressions) * 10_000) / 10_000 : 0,
  };
}

function sum(days: DailyFigures[]): DailyFigures {
  const total: DailyFigures = {
    impressions: 0,
    clicks: 0,
    cost: 0,
    purchases7d: 0,
    sales7d: 0,
    purchases14d: 0,
    sales14d: 0,
  };
  for (const d of days) for (const k of Object.keys(total) as Array<keyof DailyFigures>) total[k] += d[k];
  return total;
}
