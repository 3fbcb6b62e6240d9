import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { accessDenied, sellingError, unparsableRequest } from '../api-errors.js';
import type { Catalog } from '../catalog.js';
import type { TokenStore } from '../tokens.js';
import { sellingPrincipal, type FictionalVendor } from '../vendor.js';
import { couponPerformance, promotionPerformance } from './deals.js';
import { ECONOMICS_DATASET, economicsRecords } from './economics.js';
import { createJobStore, type FinishedJob, type Job, type JobApi, type JobOutcome } from './jobs.js';
import { dateOfDay, dayOf, dayOfWire } from './keyed.js';
import { searchQueryPerformance } from './search-query.js';
import { allOrdersByOrderDate, LISTINGS_REPORT, merchantListingsAll, ORDERS_REPORT } from './seller-flat-files.js';
import { fatal, type Principal, type ReportRequest, type ReportSource, type ReportType } from './types.js';
import { vendorInventory, vendorSales, vendorTraffic } from './vendor-reports.js';

// Reports API 2021-06-30 (createReport, getReport, cancelReport, getReportDocument) and Data
// Kiosk 2023-11-15 (createQuery, getQuery, getDocument) over one job store; the documents'
// presigned URLs point back at this simulator (/report-documents/<id>).

export const REPORT_TYPES: Readonly<Record<string, ReportType>> = {
  GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT: searchQueryPerformance,
  GET_COUPON_PERFORMANCE_REPORT: couponPerformance,
  GET_PROMOTION_PERFORMANCE_REPORT: promotionPerformance,
  GET_VENDOR_SALES_REPORT: vendorSales,
  GET_VENDOR_TRAFFIC_REPORT: vendorTraffic,
  GET_VENDOR_INVENTORY_REPORT: vendorInventory,
  [ORDERS_REPORT]: allOrdersByOrderDate,
  [LISTINGS_REPORT]: merchantListingsAll,
};

export interface ReportsDeps {
  seed: number;
  catalog: Catalog;
  vendor: FictionalVendor;
  merchantId: string;
  selling: ReportSource['selling'];
  tokens: TokenStore;
  now: () => number;
  /** Hears of every report and query that finished processing. */
  onFinished?: (job: FinishedJob) => void;
}

const createReportBody = z.object({
  reportType: z.string().min(1),
  marketplaceIds: z.array(z.string()).min(1).max(25),
  dataStartTime: z.string().optional(),
  dataEndTime: z.string().optional(),
  reportOptions: z.record(z.string(), z.string()).optional(),
});

const createQueryBody = z.object({ query: z.string().min(1).max(8000), paginationToken: z.string().optional() });

/** Data Kiosk queries the simulator answers: the economics dataset, aggregated by day and MSKU; its records. */
function economicsQuery(query: string, source: ReportSource): string[] | JobOutcome {
  if (!query.includes(ECONOMICS_DATASET) || !/\beconomics\s*\(/.test(query))
    return fatal(`The simulator answers ${ECONOMICS_DATASET} economics queries only.`);
  const arg = (name: string) => new RegExp(`\\b${name}\\s*:\\s*"([^"]*)"`).exec(query)?.[1];
  const from = dayOfWire(arg('startDate'));
  const to = dayOfWire(arg('endDate'));
  const marketplaces =
    /\bmarketplaceIds\s*:\s*\[([^\]]*)\]/
      .exec(query)?.[1]
      ?.match(/"[^"]+"/g)
      ?.map((s) => s.slice(1, -1)) ?? [];
  if (from === undefined || to === undefined || to < from)
    return fatal('startDate and endDate are required dates, in order.');
  if (to - from > 31) return fatal('The date range of an economics query must not exceed 31 days.');
  if (!/\bdate\s*:\s*DAY\b/.test(query) || !/\bproductId\s*:\s*MSKU\b/.test(query))
    return fatal('The simulator aggregates economics by date DAY and productId MSKU only.');
  const lines: string[] = [];
  const today = dayOf(source.asOf);
  for (const marketplaceId of marketplaces) {
    for (const record of economicsRecords(source.catalog, marketplaceId, from, to, today, dateOfDay))
      lines.push(JSON.stringify(record));
  }
  return lines;
}

/** Where a Data Kiosk page starts: the first page, or the one a handed-out paginationToken names for the same query. */
interface QueryPage {
  query: string;
  offset: number;
}

export function registerReports(app: FastifyInstance, deps: ReportsDeps): void {
  const jobs = createJobStore((job) =>
    deps.onFinished?.({
      api: job.api,
      id: job.id,
      owner: job.owner,
      subject: (job.api === 'reports' ? specs.get(job.id)?.reportType : queries.get(job.id)) ?? '',
      processingStatus: job.status,
      ...(job.documentId ? { documentId: job.documentId } : {}),
      ...(job.errorDocumentId ? { errorDocumentId: job.errorDocumentId } : {}),
    }),
  );
  const iso = () => new Date(deps.now()).toISOString();
  const source = (): ReportSource => ({
    seed: deps.seed,
    catalog: deps.catalog,
    vendor: deps.vendor,
    merchantId: deps.merchantId,
    selling: deps.selling,
    asOf: deps.now(),
  });
  const route = { config: { api: 'selling' as const } };

  /** The caller's principal, or a 403 like the selling API's. */
  const principalOf = (request: FastifyRequest, reply: FastifyReply): Principal | undefined => {
    const principal = sellingPrincipal(deps.tokens, request);
    if (!principal)
      void reply.code(403).send(accessDenied('The access token you provided is revoked, malformed or invalid.'));
    return principal;
  };
  const notFound = (reply: FastifyReply, what: string) =>
    reply.code(404).send(sellingError('NotFound', `${what} not found.`));
  const documentUrl = (request: FastifyRequest, id: string) =>
    `${request.protocol}://${request.host}/report-documents/${encodeURIComponent(id)}?X-Amz-Expires=300`;

  const reportOf = (job: Job, spec: ReportRequest) => ({
    reportId: job.id,
    reportType: spec.reportType,
    marketplaceIds: spec.marketplaceIds,
    ...(spec.dataStartTime ? { dataStartTime: spec.dataStartTime } : {}),
    ...(spec.dataEndTime ? { dataEndTime: spec.dataEndTime } : {}),
    createdTime: job.createdAt,
    processingStatus: job.status,
    ...(job.processingStartTime ? { processingStartTime: job.processingStartTime } : {}),
    ...(job.processingEndTime ? { processingEndTime: job.processingEndTime } : {}),
    ...(job.documentId ? { reportDocumentId: job.documentId } : {}),
  });
  const specs = new Map<string, ReportRequest>();
  const queries = new Map<string, string>();
  // Data Kiosk pages: records per page (tests set it through /_sim/dataKiosk/paging; unset, one
  // page holds all), and the paginationTokens handed out, each naming its query and first record
  let pageRecords: number | null = null;
  const pages = new Map<string, QueryPage>();
  /** One page of a query's records from `offset`, with the next page's token when more follow. */
  const queryPage = (page: QueryPage, at: ReportSource, per: number | null): JobOutcome => {
    const records = economicsQuery(page.query, at);
    if (!Array.isArray(records)) return records;
    const end = per === null ? records.length : page.offset + per;
    const lines = records.slice(page.offset, end);
    if (lines.length === 0) return { kind: 'empty' };
    let nextToken: string | undefined;
    if (end < records.length) {
      nextToken = randomBytes(24).toString('base64url');
      pages.set(nextToken, { query: page.query, offset: end });
      if (pages.size > 5_000) pages.delete(pages.keys().next().value!);
    }
    return { kind: 'document', body: `${lines.join('\n')}\n`, ...(nextToken ? { nextToken } : {}) };
  };

  /** The request body as `schema` reads it, or undefined with the 400 sent. */
  function bodyOf<T>(schema: z.ZodType<T>, request: FastifyRequest, reply: FastifyReply): T | undefined {
    const parsed = schema.safeParse(request.body);
    if (!parsed.success) void reply.code(400).send(unparsableRequest(parsed.error.issues[0]?.message));
    return parsed.data;
  }

  /** The caller's job `id` of `api` with what it was asked, or undefined with the 404 sent. */
  function jobOf<T>(reply: FastifyReply, principal: Principal, api: JobApi, id: string, asked: Map<string, T>) {
    const job = jobs.read(id, principal, iso());
    const question = asked.get(id);
    if (job && job.api === api && question !== undefined) return { job, question };
    void notFound(reply, api === 'reports' ? 'Report' : 'Query');
    return undefined;
  }

  /**
   * GET of a document of `api` (reports' are gzipped, queries' not) for its owner: `answer`
   * words its presigned URL.
   */
  function documentRoute(path: string, api: JobApi, answer: (id: string, url: string) => Record<string, string>) {
    app.get<{ Params: { documentId: string } }>(path, route, async (request, reply) => {
      const principal = principalOf(request, reply);
      if (!principal) return reply;
      const id = request.params.documentId;
      const document = jobs.document(id);
      if (!document || document.owner !== principal || document.gzip !== (api === 'reports'))
        return notFound(reply, api === 'reports' ? 'Report document' : 'Document');
      return answer(id, documentUrl(request, id));
    });
  }

  /** Starts a job on the simulator's state as of now and keeps what it was asked (the latest 5,000). */
  function start<T>(
    api: JobApi,
    principal: Principal,
    asked: Map<string, T>,
    what: T,
    produce: (at: ReportSource) => JobOutcome,
  ) {
    const at = source();
    const job = jobs.create(api, principal, iso(), () => produce(at));
    asked.set(job.id, what);
    if (asked.size > 5_000) asked.delete(asked.keys().next().value!);
    return job.id;
  }

  app.post('/reports/2021-06-30/reports', route, async (request, reply) => {
    const principal = principalOf(request, reply);
    if (!principal) return reply;
    const body = bodyOf(createReportBody, request, reply);
    if (!body) return reply;
    const spec: ReportRequest = { ...body, reportOptions: body.reportOptions ?? {} };
    const type = REPORT_TYPES[spec.reportType];
    if (!type) return reply.code(400).send(sellingError('InvalidInput', `Invalid reportType ${spec.reportType}.`));
    if (type.principal !== principal)
      return reply.code(403).send(accessDenied(`${spec.reportType} is not available to this selling partner.`));
    return reply.code(202).send({ reportId: start('reports', principal, specs, spec, (at) => type.produce(spec, at)) });
  });

  app.get<{ Params: { reportId: string } }>('/reports/2021-06-30/reports/:reportId', route, async (request, reply) => {
    const principal = principalOf(request, reply);
    if (!principal) return reply;
    const found = jobOf(reply, principal, 'reports', request.params.reportId, specs);
    return found ? reportOf(found.job, found.question) : reply;
  });

  app.delete<{ Params: { reportId: string } }>(
    '/reports/2021-06-30/reports/:reportId',
    route,
    async (request, reply) => {
      const principal = principalOf(request, reply);
      if (!principal) return reply;
      if (!jobs.cancel(request.params.reportId, principal)) return notFound(reply, 'Report');
      return reply.code(200).send();
    },
  );

  documentRoute('/reports/2021-06-30/documents/:documentId', 'reports', (id, url) => ({
    reportDocumentId: id,
    url,
    compressionAlgorithm: 'GZIP',
  }));

  app.post('/dataKiosk/2023-11-15/queries', route, async (request, reply) => {
    const principal = principalOf(request, reply);
    if (!principal) return reply;
    const body = bodyOf(createQueryBody, request, reply);
    if (!body) return reply;
    if (principal !== 'seller')
      return reply.code(403).send(accessDenied('The economics dataset is available to sellers only.'));
    const { query, paginationToken } = body;
    const page = paginationToken === undefined ? { query, offset: 0 } : pages.get(paginationToken);
    if (!page || page.query !== query)
      return reply
        .code(400)
        .send(
          sellingError(
            'InvalidInput',
            page ? 'The query must be the query of the paginationToken.' : 'Invalid paginationToken.',
          ),
        );
    const per = pageRecords;
    return reply
      .code(202)
      .send({ queryId: start('dataKiosk', principal, queries, query, (at) => queryPage(page, at, per)) });
  });

  app.get<{ Params: { queryId: string } }>('/dataKiosk/2023-11-15/queries/:queryId', route, async (request, reply) => {
    const principal = principalOf(request, reply);
    if (!principal) return reply;
    const found = jobOf(reply, principal, 'dataKiosk', request.params.queryId, queries);
    if (!found) return reply;
    const { job, question: query } = found;
    return {
      queryId: job.id,
      query,
      createdTime: job.createdAt,
      processingStatus: job.status,
      ...(job.processingStartTime ? { processingStartTime: job.processingStartTime } : {}),
      ...(job.processingEndTime ? { processingEndTime: job.processingEndTime } : {}),
      ...(job.documentId ? { dataDocumentId: job.documentId } : {}),
      ...(job.errorDocumentId ? { errorDocumentId: job.errorDocumentId } : {}),
      ...(job.nextToken ? { pagination: { nextToken: job.nextToken } } : {}),
    };
  });

  documentRoute('/dataKiosk/2023-11-15/documents/:documentId', 'dataKiosk', (id, url) => ({
    documentId: id,
    documentUrl: url,
  }));

  app.put('/_sim/reports/processing', async (request, reply) => {
    const parsed = z.object({ paused: z.boolean() }).safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: 'expected { paused: boolean }' });
    jobs.setPaused(parsed.data.paused);
    return { paused: parsed.data.paused };
  });

  app.put('/_sim/dataKiosk/paging', async (request, reply) => {
    const parsed = z.object({ records: z.number().int().positive().nullable() }).safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: 'expected { records: positive integer | null }' });
    pageRecords = parsed.data.records;
    return { records: pageRecords };
  });

  // The presigned download: no access token, like an S3 URL.
  app.get<{ Params: { documentId: string } }>('/report-documents/:documentId', route, async (request, reply) => {
    const document = jobs.document(request.params.documentId);
    if (!document) return reply.code(404).type('application/xml').send('<Error><Code>NoSuchKey</Code></Error>');
    return reply.type(document.gzip ? 'application/octet-stream' : 'application/x-ndjson').send(document.body);
  });
}
