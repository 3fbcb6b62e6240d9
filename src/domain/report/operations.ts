import { z } from 'zod';
import { DomainError } from '../shared/errors.js';
import type { ReportApi, ReportRequestedData } from './events.js';
import { firstIssue } from '../shared/issues.js';

// The three reviewed report operations (spec 4.9: the selling API's createReport, the data kiosk's
// createQuery, the ads reporting createAsyncReport): which provider API carries each, which target
// it runs on, and its native parameters. Values the target gives (marketplaces, the profile) are
// derived; a value supplied that disagrees is `scope_mismatch` (spec 7).

export interface ReportOperation {
  api: ReportApi;
  /** the completion's event type (spec 6.3) */
  completion: 'SELLING_REPORT_COMPLETED' | 'ADS_REPORT_COMPLETED';
  targetType: 'SellingPartner' | 'AdvertisingProfile';
  parameters: z.ZodType<Record<string, unknown>>;
}

const isoDay = z.iso.date({ error: 'a calendar date YYYY-MM-DD' });

export const REPORT_OPERATIONS: Readonly<Record<string, ReportOperation>> = {
  'sp_api:reports:2021-06-30:createReport': {
    api: 'reports',
    completion: 'SELLING_REPORT_COMPLETED',
    targetType: 'SellingPartner',
    parameters: z.strictObject({
      reportType: z.string().min(1),
      marketplaceIds: z.array(z.string().min(1)).min(1).max(25).optional(),
      dataStartTime: z.iso.datetime({ offset: true }).optional(),
      dataEndTime: z.iso.datetime({ offset: true }).optional(),
      reportOptions: z.record(z.string(), z.string()).optional(),
    }),
  },
  'sp_api:data-kiosk:2023-11-15:createQuery': {
    api: 'dataKiosk',
    completion: 'SELLING_REPORT_COMPLETED',
    targetType: 'SellingPartner',
    // a page's paginationToken comes from `continuation` only
    parameters: z.strictObject({ query: z.string().min(1).max(8000) }),
  },
  'ads_api:reporting:3.0:createAsyncReport': {
    api: 'ads',
    completion: 'ADS_REPORT_COMPLETED',
    targetType: 'AdvertisingProfile',
    parameters: z.strictObject({
      name: z.string().optional(),
      startDate: isoDay,
      endDate: isoDay,
      configuration: z.strictObject({
        adProduct: z.literal('SPONSORED_PRODUCTS'),
        groupBy: z.array(z.string()).min(1),
        columns: z.array(z.string()).min(1),
        reportTypeId: z.string().min(1),
        timeUnit: z.enum(['DAILY', 'SUMMARY']),
        format: z.literal('GZIP_JSON'),
        filters: z
          .array(z.object({ field: z.string(), values: z.array(z.string()) }))
          .nullable()
          .optional(),
      }),
    }),
  },
};

export const reportOperation = (key: string): ReportOperation | undefined =>
  Object.hasOwn(REPORT_OPERATIONS, key) ? REPORT_OPERATIONS[key] : undefined;

/** A report operation's native parameters, checked: `invalid_parameters` naming the first failing path. */
export function checkedParameters(operation: string, parameters: unknown): Record<string, unknown> {
  const parsed = REPORT_OPERATIONS[operation]!.parameters.safeParse(parameters ?? {});
  if (parsed.success) return parsed.data;
  const issue = firstIssue(parsed.error.issues);
  const at = ['parameters', ...issue.path.map(String)].join('.');
  throw new DomainError('invalid_parameters', `${at}: ${issue.message} (native schema of ${operation})`, {
    argument: 'parameters',
  });
}

/**
 * The marketplaces a selling report covers: the ones it names, each of which must be one of the
 * connection's (`scope_mismatch` otherwise), or all of the connection's.
 */
export function reportMarketplaces(named: readonly string[] | undefined, admitted: readonly string[]): string[] {
  if (!named) return [...admitted];
  const foreign = named.filter((m) => !admitted.includes(m));
  if (foreign.length > 0)
    throw new DomainError(
      'scope_mismatch',
      `parameters.marketplaceIds: ${foreign.join(', ')} is not a marketplace of the target's connection (${admitted.join(', ')})`,
      { argument: 'parameters' },
    );
  return [...named];
}

/** The report type a request asks for, as its completion event and its Report context name it. */
export const reportTypeOf = (r: ReportRequestedData): string =>
  r.api === 'ads'
    ? String((r.parameters.configuration as Record<string, unknown> | undefined)?.reportTypeId ?? '')
    : r.api === 'dataKiosk'
      ? 'DATA_KIOSK_QUERY'
      : String(r.parameters.reportType ?? '');
