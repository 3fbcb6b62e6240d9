import type { EventContract } from './envelope.js';
import { SAMPLE } from './envelope.js';

// The service's own report completions (no marketplace wire shape): camelCase, naming the
// report receipt; its metadata and the data it brought are in `context.report`.

const completion = (code: string, reportType: string, scope: Record<string, unknown>): EventContract => ({
  fixture: {
    eventType: code,
    eventTime: SAMPLE.at,
    reportReceiptId: '5b0c9a57-8f61-4d1e-9f3b-1c2d3e4f5a6b',
    reportType,
    processingStatus: 'DONE',
    ingestionStatus: 'imported',
    ...scope,
  },
  notes: {
    eventType: { description: 'the event type code' },
    eventTime: { description: 'when the request was finalized (ISO 8601 UTC)' },
    reportReceiptId: { description: 'the report receipt (request_report); context.report describes it' },
    processingStatus: { description: "the provider's terminal status: DONE, CANCELLED or FATAL" },
    ingestionStatus: {
      description: 'imported, not_scheduled (customer-requested artifacts are never imported) or failed',
    },
  },
});

export const sellingReportCompleted = completion('SELLING_REPORT_COMPLETED', 'GET_MERCHANT_LISTINGS_ALL_DATA', {
  marketplaceIds: [SAMPLE.marketplaceId],
});

export const adsReportCompleted = completion('ADS_REPORT_COMPLETED', 'spCampaigns', {
  profileId: '3164827164823947',
  marketplaceIds: [SAMPLE.marketplaceId],
});
