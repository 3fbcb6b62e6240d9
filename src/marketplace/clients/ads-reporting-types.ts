import { z } from 'zod';
import { instant } from '../../domain/shared/instant.js';

// Wire shapes of the ads API's asynchronous reporting, version 3: POST /reporting/reports,
// GET /reporting/reports/{reportId}, and the report document (gzip-compressed JSON rows).

export const REPORT_MEDIA_TYPE = 'application/vnd.createasyncreportrequest.v3+json';

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const reportConfigurationSchema = z.object({
  adProduct: z.literal('SPONSORED_PRODUCTS'),
  groupBy: z.array(z.string()).min(1),
  columns: z.array(z.string()).min(1),
  reportTypeId: z.string(),
  timeUnit: z.enum(['DAILY', 'SUMMARY']),
  format: z.literal('GZIP_JSON'),
  filters: z
    .array(z.object({ field: z.string(), values: z.array(z.string()) }))
    .nullable()
    .optional(),
});

export const createReportRequestSchema = z.object({
  name: z.string().optional(),
  startDate: isoDate,
  endDate: isoDate,
  configuration: reportConfigurationSchema,
});
export type CreateReportRequest = z.infer<typeof createReportRequestSchema>;

export const REPORT_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;

export const reportSchema = z.looseObject({
  reportId: z.string(),
  name: z.string().nullable().optional(),
  status: z.enum(REPORT_STATUSES),
  startDate: isoDate,
  endDate: isoDate,
  configuration: reportConfigurationSchema,
  createdAt: instant,
  updatedAt: instant,
  generatedAt: instant.nullable(),
  fileSize: z.number().nullable(),
  url: z.string().nullable(),
  urlExpiresAt: instant.nullable(),
  failureReason: z.string().nullable(),
});
export type Report = z.infer<typeof reportSchema>;

/** The metrics both daily reports carry. */
const spDailyMetrics = {
  impressions: z.number().int(),
  clicks: z.number().int(),
  cost: z.number(),
  sales7d: z.number(),
  purchases7d: z.number().int(),
};

/** A daily report's row: the date first, then the report's own fields, then the metrics. */
const spDailyRow = <Fields extends z.ZodRawShape>(fields: Fields) =>
  z.looseObject({ date: isoDate, ...fields, ...spDailyMetrics });

/**
 * A row of a daily Sponsored Products campaign report. Ids are JSON numbers in report documents
 * (strings in the v3 entity resources); money is in major units of the profile currency.
 */
export const spCampaignDailyRowSchema = spDailyRow({
  campaignId: z.number().int(),
  campaignName: z.string(),
  campaignStatus: z.string(),
  campaignBudgetAmount: z.number(),
});

/** The columns the campaign metrics sync asks for: the row's fields. */
export const SP_CAMPAIGN_DAILY_COLUMNS = spCampaignDailyRowSchema.keyof().options;

/**
 * A row of a daily Sponsored Products targeting report (groupBy targeting): one keyword or
 * targeting clause per day. `keywordId` carries a targeting clause's id too; `keywordType` tells
 * them apart (BROAD, PHRASE, EXACT for keywords; TARGETING_EXPRESSION, or
 * TARGETING_EXPRESSION_PREDEFINED for the auto buckets).
 */
export const spTargetingDailyRowSchema = spDailyRow({
  campaignId: z.number().int(),
  adGroupId: z.number().int(),
  keywordId: z.number().int(),
  targeting: z.string(),
  keywordType: z.string(),
  matchType: z.string(),
});

/** The columns the targeting metrics sync asks for: the row's fields. */
export const SP_TARGETING_DAILY_COLUMNS = spTargetingDailyRowSchema.keyof().options;

/** The longest window one spCampaigns or spTargeting report may cover, in days. */
export const MAX_REPORT_DAYS = 31;
