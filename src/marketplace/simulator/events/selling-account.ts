import { rngOf } from '../ads/seeded.js';
import type { FinishedJob } from '../reports/jobs.js';
import { hourWindow } from './selling-orders.js';

// Payloads of the account-level notifications, all camelCase: account status, feed, report and
// Data Kiosk query completions, and hourly detail-page traffic.

export const accountIdOf = (merchantId: string) => `amzn1.merchant.o.${merchantId}`;

export type AccountStatus = 'NORMAL' | 'AT_RISK' | 'DEACTIVATED';

export const accountStatusChanged = (previous: AccountStatus, current: AccountStatus) => ({
  accountStatusChangeNotification: { previousAccountStatus: previous, currentAccountStatus: current },
});

export interface FinishedFeed {
  feedId: string;
  feedType: string;
  processingStatus: 'DONE' | 'CANCELLED' | 'FATAL';
}

export const feedProcessingFinished = (merchantId: string, feed: FinishedFeed) => ({
  feedProcessingFinishedNotification: {
    sellerId: merchantId,
    accountId: accountIdOf(merchantId),
    feedId: feed.feedId,
    feedType: feed.feedType,
    processingStatus: feed.processingStatus,
    ...(feed.processingStatus === 'CANCELLED' ? {} : { resultFeedDocumentId: `amzn1.tortuga.4.na.${feed.feedId}` }),
  },
});

export const reportProcessingFinished = (merchantId: string, job: FinishedJob) => ({
  reportProcessingFinishedNotification: {
    sellerId: merchantId,
    accountId: accountIdOf(merchantId),
    reportId: job.id,
    reportType: job.subject,
    processingStatus: job.processingStatus,
    ...(job.documentId ? { reportDocumentId: job.documentId } : {}),
  },
});

export const dataKioskQueryProcessingFinished = (merchantId: string, job: FinishedJob) => ({
  accountId: accountIdOf(merchantId),
  queryId: job.id,
  query: job.subject,
  processingStatus: job.processingStatus,
  ...(job.documentId ? { dataDocumentId: job.documentId } : {}),
  ...(job.errorDocumentId ? { errorDocumentId: job.errorDocumentId } : {}),
});

/** Glance views per ASIN for one hour, drawn from (seed, ASIN, hour). */
export function detailPageTrafficEvent(
  seed: number,
  merchantId: string,
  marketplaceId: string,
  asins: readonly string[],
  hourStart: number,
) {
  const { start, end } = hourWindow(hourStart);
  return {
    detailPageTrafficEvents: asins.map((asin) => ({
      accountId: accountIdOf(merchantId),
      marketplaceId,
      startTime: start,
      endTime: end,
      asin,
      glanceViews: rngOf(seed, 'glance-views', asin, hourStart).int(0, 120),
    })),
  };
}
