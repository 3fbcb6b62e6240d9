// What a sync does next with one report (Reports API) or query (Data Kiosk) it asked the
// marketplace for, from what the marketplace says of it now. A request the marketplace no longer
// knows (a 404: expired, or a marketplace that restarted and forgot it), one cancelled before it
// began, and one that ended FATAL are asked for afresh: the sync's data would otherwise stay
// unread until its next interval. A Reports API report cancelled after it began is the
// marketplace's way of saying it has no data, and is read as such. A request asked for
// `maxRequests` times without an answer is given up, so a marketplace that keeps failing one
// is not asked for it again and again.

export type ReportApi = 'reports' | 'dataKiosk';

/** What the marketplace said of a request: its processing status, or that it doesn't know it. */
export type ReportAnswer =
  | { known: false }
  | {
      known: true;
      status: 'IN_QUEUE' | 'IN_PROGRESS' | 'DONE' | 'FATAL' | 'CANCELLED';
      /** processing began (the answer has a processingStartTime) */
      started: boolean;
      /** the document to read, when DONE with one */
      documentId?: string;
    };

export type ReportStep =
  | { step: 'wait' }
  | { step: 'read'; documentId: string }
  | { step: 'no_data' }
  /** `reason` says why, for the record and the log */
  | { step: 'request_again'; reason: string }
  | { step: 'give_up'; reason: string };

/** How often one report is asked for before a sync gives it up (to its next attempt). */
export const MAX_REPORT_REQUESTS = 3;

export function nextReportStep(
  api: ReportApi,
  answer: ReportAnswer,
  requests: number,
  maxRequests = MAX_REPORT_REQUESTS,
): ReportStep {
  const again = (reason: string): ReportStep =>
    requests < maxRequests
      ? { step: 'request_again', reason }
      : { step: 'give_up', reason: `${reason}, after ${requests} requests` };
  if (!answer.known) return again('unknown to the marketplace');
  switch (answer.status) {
    case 'IN_QUEUE':
    case 'IN_PROGRESS':
      return { step: 'wait' };
    case 'DONE':
      // a query DONE without a document found no data
      return answer.documentId ? { step: 'read', documentId: answer.documentId } : { step: 'no_data' };
    case 'FATAL':
      return again('FATAL at the marketplace');
    case 'CANCELLED':
      // Data Kiosk cancels only before processing; the Reports API also cancels a report without data
      return api === 'reports' && answer.started ? { step: 'no_data' } : again('cancelled before it began');
  }
}
