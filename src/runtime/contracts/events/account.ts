import { AS_SENT, each, type Notes } from '../fields.js';
import { sellingEvent, SAMPLE, type EventContract } from './envelope.js';

// The account-level notifications (camelCase envelopes): account status, feed completion, and
// the hourly brand-analytics figures per ASIN.

const accountId = `amzn1.merchant.o.${SAMPLE.sellerId}`;
const hour = { startTime: SAMPLE.hour, endTime: '2026-05-20T14:00:00Z' };
const hourNotes = (at: string): Notes => ({
  [`${at}.startTime`]: { description: 'start of the hour covered (ISO 8601 UTC)' },
  [`${at}.endTime`]: { description: 'end of the hour covered (exclusive)' },
});

export const accountStatusChanged: EventContract = sellingEvent(
  'ACCOUNT_STATUS_CHANGED',
  '1.0',
  { accountStatusChangeNotification: { previousAccountStatus: 'NORMAL', currentAccountStatus: 'AT_RISK' } },
  each(
    ['accountStatusChangeNotification.previousAccountStatus', 'accountStatusChangeNotification.currentAccountStatus'],
    { description: 'NORMAL, AT_RISK or DEACTIVATED' },
  ),
);

export const feedProcessingFinished: EventContract = sellingEvent(
  'FEED_PROCESSING_FINISHED',
  '2020-09-04',
  {
    feedProcessingFinishedNotification: {
      sellerId: SAMPLE.sellerId,
      accountId,
      feedId: '60000000001',
      feedType: 'JSON_LISTINGS_FEED',
      processingStatus: 'DONE',
      resultFeedDocumentId: 'amzn1.tortuga.4.na.60000000001',
    },
  },
  {
    'feedProcessingFinishedNotification.processingStatus': { description: 'DONE, CANCELLED or FATAL' },
    'feedProcessingFinishedNotification.resultFeedDocumentId': {
      optional: true,
      description: 'the processing report; absent when the feed was cancelled',
    },
  },
);

export const itemSalesEventChange: EventContract = sellingEvent(
  'ITEM_SALES_EVENT_CHANGE',
  '2020-09-04',
  {
    itemSalesEventChanges: [
      {
        accountId,
        marketplaceId: SAMPLE.marketplaceId,
        currencyCode: SAMPLE.currency,
        ...hour,
        asin: SAMPLE.asin,
        orderedUnits: 3,
        orderedRevenue: 137.97,
      },
    ],
  },
  {
    itemSalesEventChanges: { description: 'one entry per ASIN with sales in the hour' },
    ...hourNotes('itemSalesEventChanges[]'),
    'itemSalesEventChanges[].orderedUnits': { unit: 'units' },
    'itemSalesEventChanges[].orderedRevenue': { unit: AS_SENT },
  },
);

export const detailPageTrafficEvent: EventContract = sellingEvent(
  'DETAIL_PAGE_TRAFFIC_EVENT',
  '2020-09-04',
  {
    detailPageTrafficEvents: [
      { accountId, marketplaceId: SAMPLE.marketplaceId, ...hour, asin: SAMPLE.asin, glanceViews: 51 },
    ],
  },
  {
    detailPageTrafficEvents: { description: 'one entry per ASIN for the hour' },
    ...hourNotes('detailPageTrafficEvents[]'),
    'detailPageTrafficEvents[].glanceViews': { unit: 'views' },
  },
);
