import { expect } from 'chai';
import {
  MAX_REPORT_REQUESTS,
  nextReportStep,
  type ReportAnswer,
  type ReportApi,
} from '../../src/domain/observation/report-request.js';

// What a sync does with a report or query it asked for, given the marketplace's answer and how
// often it has asked: every status of both APIs, the 404, and the last request.

const status = (s: Extract<ReportAnswer, { known: true }>['status'], started = true, documentId?: string) =>
  ({ known: true, status: s, started, ...(documentId ? { documentId } : {}) }) as ReportAnswer;

const cases: Array<{ given: string; api: ReportApi; answer: ReportAnswer; then: ReturnType<typeof nextReportStep> }> = [
  { given: 'queued', api: 'reports', answer: status('IN_QUEUE', false), then: { step: 'wait' } },
  { given: 'in progress', api: 'dataKiosk', answer: status('IN_PROGRESS'), then: { step: 'wait' } },
  {
    given: 'done with a document',
    api: 'reports',
    answer: status('DONE', true, 'doc-1'),
    then: { step: 'read', documentId: 'doc-1' },
  },
  { given: 'a query done without a document', api: 'dataKiosk', answer: status('DONE'), then: { step: 'no_data' } },
  {
    given: 'a report cancelled after it began (no data)',
    api: 'reports',
    answer: status('CANCELLED'),
    then: { step: 'no_data' },
  },
  {
    given: 'a report cancelled before it began',
    api: 'reports',
    answer: status('CANCELLED', false),
    then: { step: 'request_again', reason: 'cancelled before it began' },
  },
  {
    given: 'a cancelled query (Data Kiosk cancels only before processing)',
    api: 'dataKiosk',
    answer: status('CANCELLED'),
    then: { step: 'request_again', reason: 'cancelled before it began' },
  },
  {
    given: 'FATAL',
    api: 'reports',
    answer: status('FATAL'),
    then: { step: 'request_again', reason: 'FATAL at the marketplace' },
  },
  {
    given: 'a request the marketplace no longer knows (404)',
    api: 'dataKiosk',
    answer: { known: false },
    then: { step: 'request_again', reason: 'unknown to the marketplace' },
  },
];

describe('report requests: the next step', () => {
  for (const c of cases)
    it(`given ${c.given}, on a first request: ${c.then.step}`, () => {
      expect(nextReportStep(c.api, c.answer, 1)).to.deep.equal(c.then);
    });

  it(`gives a request up once asked for ${MAX_REPORT_REQUESTS} times, saying why`, () => {
    expect(nextReportStep('reports', status('FATAL'), MAX_REPORT_REQUESTS - 1).step).to.equal('request_again');
    expect(nextReportStep('reports', status('FATAL'), MAX_REPORT_REQUESTS)).to.deep.equal({
      step: 'give_up',
      reason: `FATAL at the marketplace, after ${MAX_REPORT_REQUESTS} requests`,
    });
    expect(nextReportStep('dataKiosk', { known: false }, 5, 5).step).to.equal('give_up');
  });

  it('never gives up a request still running, or one that answered', () => {
    for (const answer of [status('IN_PROGRESS'), status('DONE', true, 'd'), status('CANCELLED')])
      expect(nextReportStep('reports', answer, 99).step).to.be.oneOf(['wait', 'read', 'no_data']);
  });
});
