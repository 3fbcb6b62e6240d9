import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import type { AdsCall } from './ads.js';
import { REPORT_MEDIA_TYPE, reportSchema, type CreateReportRequest, type Report } from './ads-reporting-types.js';
import { MarketplaceError } from './errors.js';
import type { Http } from './http.js';

// Asynchronous reporting v3. Creating and polling are separate calls, so a caller never waits
// for a report inside one job: it creates (or, when an identical request is still running,
// adopts that one: the provider answers 425 naming it), checks the status now and then, and
// downloads the gzip-compressed JSON document from the pre-signed URL once COMPLETED.

export interface AdsReportingClient {
  /** `duplicate`: an identical request was still in progress, and this is its id. */
  createReport(profileId: string, request: CreateReportRequest): Promise<{ reportId: string; duplicate: boolean }>;
  getReport(profileId: string, reportId: string): Promise<Report>;
  /** The document's rows: the URL is pre-signed, so no ads API headers go with it. */
  downloadReport(url: string): Promise<unknown[]>;
}

const DUPLICATE = /duplicate of\s*:\s*([0-9a-f-]{36})/i;

export function createAdsReportingClient(call: AdsCall, http: Http): AdsReportingClient {
  return {
    async createReport(profileId, request) {
      try {
        const report = await call({
          method: 'POST',
          path: '/reporting/reports',
          profileId,
          mediaType: REPORT_MEDIA_TYPE,
          json: request,
          schema: reportSchema,
        });
        return { reportId: report.reportId, duplicate: false };
      } catch (error) {
        const existing =
          error instanceof MarketplaceError && error.status === 425 ? DUPLICATE.exec(error.message)?.[1] : undefined;
        if (!existing) throw error;
        return { reportId: existing, duplicate: true };
      }
    },
    getReport: (profileId, reportId) =>
      call({
        method: 'GET',
        path: `/reporting/reports/${encodeURIComponent(reportId)}`,
        profileId,
        mediaType: REPORT_MEDIA_TYPE,
        schema: reportSchema,
      }),
    async downloadReport(url) {
      const bytes = await http({
        api: 'ads report download',
        method: 'GET',
        url,
        responseType: 'bytes',
        schema: z.instanceof(Buffer),
      });
      let rows: unknown;
      try {
        rows = JSON.parse(gunzipSync(bytes).toString('utf8'));
      } catch {
        rows = undefined;
      }
      if (!Array.isArray(rows))
        throw new MarketplaceError({
          status: 200,
          code: 'invalid_response',
          message: 'ads report document: not gzip-compressed JSON rows',
          retryable: false,
        });
      return rows;
    },
  };
}
