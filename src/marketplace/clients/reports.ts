import { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { withAccessToken } from './authorized.js';
import { MarketplaceError } from './errors.js';
import { parseFlatFile } from './flat-file.js';
import { createHttp, endpointUrl, type HttpRequest, type RetryPolicy } from './http.js';
import type { LwaClient } from './lwa.js';
import {
  createQueryResponseSchema,
  createReportResponseSchema,
  dataKioskDocumentSchema,
  querySchema,
  reportDocumentSchema,
  reportSchema,
  type CreateReportSpecification,
  type DataKioskDocument,
  type Query,
  type Report,
  type ReportDocument,
} from './reports-types.js';

// The selling API's asynchronous reports: the Reports API 2021-06-30 and Data Kiosk
// 2023-11-15. Creating and polling are separate calls so that a caller never waits for a
// report inside one job: it creates, checks the status now and then, and downloads when DONE.

export interface ReportsClientOptions {
  endpoint: string;
  lwa: LwaClient;
  refreshToken: string;
  retry?: Partial<RetryPolicy>;
}

export interface ReportsClient {
  createReport(specification: CreateReportSpecification): Promise<string>;
  getReport(reportId: string): Promise<Report>;
  getReportDocument(reportDocumentId: string): Promise<ReportDocument>;
  /** Downloads a report document, gunzips it when compressed, and parses the JSON. */
  downloadReport(document: ReportDocument): Promise<unknown>;
  /** Downloads a flat-file (tab-separated) report document: one record per row, by column name,
   * decompressed and parsed a batch at a time as they are iterated. */
  downloadFlatFile(document: ReportDocument): Promise<AsyncIterable<Record<string, string>[]>>;
  /** `paginationToken`: the next page of a query whose previous page had one. */
  createQuery(query: string, paginationToken?: string): Promise<string>;
  getQuery(queryId: string): Promise<Query>;
  getQueryDocument(documentId: string): Promise<DataKioskDocument>;
  /** Downloads a Data Kiosk document: one JSON record per line. */
  downloadQueryDocument(document: DataKioskDocument): Promise<unknown[]>;
}

const bytesSchema = z.instanceof(Buffer);

export function createReportsClient(options: ReportsClientOptions): ReportsClient {
  const http = createHttp(options.retry);
  const call = <T>(request: Omit<HttpRequest<T>, 'api' | 'url' | 'headers'> & { path: string }) =>
    withAccessToken(options.lwa, options.refreshToken, (accessToken) =>
      http({
        ...request,
        api: 'selling API',
        url: endpointUrl(options.endpoint, request.path),
        headers: { 'x-amz-access-token': accessToken },
      }),
    );
  // presigned URLs carry their own authorization
  const download = (url: string) =>
    http({ api: 'report download', method: 'GET', url, responseType: 'bytes', schema: bytesSchema });
  const id = encodeURIComponent;
  const reportText = async (document: ReportDocument) => {
    const body = await download(document.url);
    return (document.compressionAlgorithm === 'GZIP' ? gunzipSync(body) : body).toString('utf8');
  };
  return {
    async createReport(specification) {
      return (
        await call({
          method: 'POST',
          path: '/reports/2021-06-30/reports',
          json: specification,
          schema: createReportResponseSchema,
        })
      ).reportId;
    },
    getReport: (reportId) =>
      call({ method: 'GET', path: `/reports/2021-06-30/reports/${id(reportId)}`, schema: reportSchema }),
    getReportDocument: (documentId) =>
      call({ method: 'GET', path: `/reports/2021-06-30/documents/${id(documentId)}`, schema: reportDocumentSchema }),
    async downloadReport(document) {
      const text = await reportText(document);
      try {
        return JSON.parse(text);
      } catch {
        throw new MarketplaceError({
          status: 200,
          code: 'invalid_response',
          message: `report document ${document.reportDocumentId}: not JSON`,
          retryable: false,
        });
      }
    },
    async downloadFlatFile(document) {
      const body = Readable.from([await download(document.url)]);
      const text = (document.compressionAlgorithm === 'GZIP' ? body.pipe(createGunzip()) : body).setEncoding('utf8');
      return parseFlatFile(text, document.reportDocumentId);
    },
    async createQuery(query, paginationToken) {
      return (
        await call({
          method: 'POST',
          path: '/dataKiosk/2023-11-15/queries',
          json: paginationToken ? { query, paginationToken } : { query },
          schema: createQueryResponseSchema,
        })
      ).queryId;
    },
    getQuery: (queryId) =>
      call({ method: 'GET', path: `/dataKiosk/2023-11-15/queries/${id(queryId)}`, schema: querySchema }),
    getQueryDocument: (documentId) =>
      call({
        method: 'GET',
        path: `/dataKiosk/2023-11-15/documents/${id(documentId)}`,
        schema: dataKioskDocumentSchema,
      }),
    async downloadQueryDocument(document) {
      // fetch undoes a Content-Encoding itself
      const lines = (await download(document.documentUrl))
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== '');
      try {
        return lines.map((line) => JSON.parse(line) as unknown);
      } catch {
        throw new MarketplaceError({
          status: 200,
          code: 'invalid_response',
          message: `Data Kiosk document ${document.documentId}: a line is not JSON`,
          retryable: false,
        });
      }
    },
  };
}
