import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import type { ReportRequestedData } from '../../domain/report/events.js';
import { createAdsClient } from '../../marketplace/clients/ads.js';
import type { CreateReportRequest } from '../../marketplace/clients/ads-reporting-types.js';
import { createHttp } from '../../marketplace/clients/http.js';
import { createReportsClient } from '../../marketplace/clients/reports.js';
import type { CreateReportSpecification } from '../../marketplace/clients/reports-types.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { connectionCredentials } from '../credentials.js';
import type { SyncDeps } from '../sync/job.js';

// One report request at its provider, through the clients the backfill uses (decision 068): the
// selling API's Reports and Data Kiosk, the ads API's asynchronous reporting. Creating and
// checking are separate calls; a document is transferred as bytes (uncompressed) once the provider
// says it is done.

export type ProviderCheck =
  | { state: 'pending'; status: string }
  | { state: 'done'; status: string; document: { media_type: string; body: Buffer; continuation: string | null } }
  | { state: 'empty' | 'cancelled' | 'fatal'; status: string; error: string | null };

export interface ReportProvider {
  create(): Promise<string>;
  check(providerId: string): Promise<ProviderCheck>;
}

const bytes = z.instanceof(Buffer);

/** The provider side of one request, with its account's credentials. */
export async function reportProvider(deps: SyncDeps, request: ReportRequestedData): Promise<ReportProvider> {
  const account: { selling: unknown; ads: unknown } | undefined = await deps.db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .where({ account_id: request.account_id })
    .first('selling', 'ads');
  if (!account) throw new Error(`account ${request.account_id} is not in the read model yet`);
  const credentials = await connectionCredentials(
    deps.credentials,
    (request.api === 'ads' ? account.ads : account.selling) as { credentials?: string | null } | null,
  );
  const refreshToken = request.api === 'ads' ? credentials.ads_refresh_token : credentials.selling_refresh_token;
  if (!refreshToken) throw new Error(`account ${request.account_id} has no credentials for its ${request.api} report`);
  // presigned document URLs carry their own authorization
  const http = createHttp();
  const download = async (url: string) =>
    http({ api: 'report download', method: 'GET', url, responseType: 'bytes', schema: bytes });

  if (request.api === 'ads') {
    const client = createAdsClient({ endpoint: deps.endpoints.adsApiUrl, lwa: deps.lwa, refreshToken }).reporting;
    const profileId = request.profile_id!;
    return {
      // an identical request still running is adopted (the provider names it)
      create: async () => (await client.createReport(profileId, request.parameters as CreateReportRequest)).reportId,
      async check(id) {
        const report = await client.getReport(profileId, id);
        if (report.status === 'FAILED') return { state: 'fatal', status: 'FATAL', error: report.failureReason };
        if (report.status !== 'COMPLETED' || !report.url) return { state: 'pending', status: report.status };
        const body = gunzipSync(await download(report.url));
        return {
          state: 'done',
          status: 'DONE',
          document: { media_type: 'application/json', body, continuation: null },
        };
      },
    };
  }
  const client = createReportsClient({ endpoint: deps.endpoints.sellingApiUrl, lwa: deps.lwa, refreshToken });
  if (request.api === 'dataKiosk')
    return {
      create: () => client.createQuery(String(request.parameters.query), request.continuation_token ?? undefined),
      async check(id) {
        const query = await client.getQuery(id);
        const status = query.processingStatus;
        if (status === 'IN_QUEUE' || status === 'IN_PROGRESS') return { state: 'pending', status };
        if (status !== 'DONE') return { state: status === 'CANCELLED' ? 'cancelled' : 'fatal', status, error: null };
        if (!query.dataDocumentId) return { state: 'empty', status, error: 'the query produced no data' };
        const document = await client.getQueryDocument(query.dataDocumentId);
        return {
          state: 'done',
          status,
          document: {
            media_type: 'application/x-ndjson',
            body: await download(document.documentUrl),
            continuation: query.pagination?.nextToken ?? null,
          },
        };
      },
    };
  return {
    create: () => client.createReport(request.parameters as unknown as CreateReportSpecification),
    async check(id) {
      const report = await client.getReport(id);
      const status = report.processingStatus;
      if (status === 'IN_QUEUE' || status === 'IN_PROGRESS') return { state: 'pending', status };
      if (status !== 'DONE' || !report.reportDocumentId)
        return { state: status === 'CANCELLED' ? 'cancelled' : 'fatal', status, error: null };
      const document = await client.getReportDocument(report.reportDocumentId);
      const raw = await download(document.url);
      const body = document.compressionAlgorithm === 'GZIP' ? gunzipSync(raw) : raw;
      return { state: 'done', status, document: { media_type: mediaTypeOf(body), body, continuation: null } };
    },
  };
}

/** Reports API documents are JSON or tab-separated flat files; which one, the bytes say. */
const mediaTypeOf = (body: Buffer): string =>
  /^\s*[[{]/.test(body.subarray(0, 64).toString('utf8')) ? 'application/json' : 'text/tab-separated-values';
