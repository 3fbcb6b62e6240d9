import { z } from 'zod';

// Wire shapes of the Reports API 2021-06-30 and Data Kiosk 2023-11-15 (selling-api models
// reports-api-model/reports_2021-06-30.json, data-kiosk-api-model/dataKiosk_2023-11-15.json).

export const PROCESSING_STATUSES = ['IN_QUEUE', 'IN_PROGRESS', 'DONE', 'FATAL', 'CANCELLED'] as const;
export type ProcessingStatus = (typeof PROCESSING_STATUSES)[number];

export interface CreateReportSpecification {
  reportType: string;
  marketplaceIds: string[];
  dataStartTime?: string;
  dataEndTime?: string;
  reportOptions?: Record<string, string>;
}

export const createReportResponseSchema = z.object({ reportId: z.string() });

export const reportSchema = z.object({
  reportId: z.string(),
  reportType: z.string(),
  marketplaceIds: z.array(z.string()).optional(),
  dataStartTime: z.string().optional(),
  dataEndTime: z.string().optional(),
  createdTime: z.string(),
  processingStatus: z.enum(PROCESSING_STATUSES),
  processingStartTime: z.string().optional(),
  processingEndTime: z.string().optional(),
  reportDocumentId: z.string().optional(),
});
export type Report = z.infer<typeof reportSchema>;

export const reportDocumentSchema = z.object({
  reportDocumentId: z.string(),
  url: z.string(),
  compressionAlgorithm: z.literal('GZIP').optional(),
});
export type ReportDocument = z.infer<typeof reportDocumentSchema>;

export const createQueryResponseSchema = z.object({ queryId: z.string() });

export const querySchema = z.object({
  queryId: z.string(),
  query: z.string(),
  createdTime: z.string(),
  processingStatus: z.enum(PROCESSING_STATUSES),
  processingStartTime: z.string().optional(),
  processingEndTime: z.string().optional(),
  /** present only when the query produced data */
  dataDocumentId: z.string().optional(),
  errorDocumentId: z.string().optional(),
  pagination: z.object({ nextToken: z.string().optional() }).optional(),
});
export type Query = z.infer<typeof querySchema>;

export const dataKioskDocumentSchema = z.object({ documentId: z.string(), documentUrl: z.string() });
export type DataKioskDocument = z.infer<typeof dataKioskDocumentSchema>;
