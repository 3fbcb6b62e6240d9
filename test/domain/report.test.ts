import { expect } from 'chai';
import { refreshable, replayVerdict, reportDecider, type ReportArtifact } from '../../src/domain/report/decide.js';
import type { ReportEvent, ReportRequestedData } from '../../src/domain/report/events.js';
import { reportView } from '../../src/domain/report/view.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { given } from '../support/gwt.js';

// The report receipt decider (spec 2.11): each step recorded once, in order, nothing after finalization.

const at = '2026-11-25T10:00:00.000Z';
const later = '2026-11-25T10:05:00.000Z';
const request: ReportRequestedData = {
  mutation_id: '5b0c9a57-8f61-4d1e-9f3b-1c2d3e4f5a6b',
  account_id: '5d1f4e1a-8a43-4f51-9d2a-6f1f1f1f1f1f',
  namespace: 'user:u1',
  idempotency_key: 'k1',
  fingerprint: 'f1',
  operation: 'sp_api:reports:2021-06-30:createReport',
  api: 'reports',
  catalog_revision: 'r1',
  target: { type: 'SellingPartner', id: 'c1' },
  marketplace_ids: ['ATVPDKIKX0DER'],
  profile_id: null,
  parameters: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA', marketplaceIds: ['ATVPDKIKX0DER'] },
  previous_page: null,
  continuation_token: null,
  automation_id: null,
  correlation: null,
  depth: 1,
  at,
};
const artifact: ReportArtifact = {
  byte_size: 120,
  media_type: 'text/tab-separated-values',
  checksum: 'sha256:00',
  expires_at: later,
  continuation_token: 'next',
};
const requested: ReportEvent = { type: 'ReportRequested', data: request };
const submitted: ReportEvent = { type: 'ReportSubmitted', data: { provider_id: 'p1', at } };
const stored: ReportEvent = { type: 'ReportArtifactStored', data: { ...artifact, at: later } };
const finalized: ReportEvent = {
  type: 'ReportFinalized',
  data: { provider_status: 'DONE', ingestion_status: 'not_scheduled', error: null, at: later },
};

describe('report decider', () => {
  it('records a request once', () => {
    given(reportDecider, []).when({ type: 'RequestReport', request }).then([requested]);
    given(reportDecider, [requested]).when({ type: 'RequestReport', request }).then([]);
  });

  it('records the provider id once', () => {
    given(reportDecider, [requested]).when({ type: 'RecordSubmission', provider_id: 'p1', at }).then([submitted]);
    given(reportDecider, [requested, submitted]).when({ type: 'RecordSubmission', provider_id: 'p2', at }).then([]);
  });

  it('records a status only when it changes, or when a caller asked for the check', () => {
    const checked: ReportEvent = { type: 'ReportStatusChecked', data: { provider_status: 'IN_QUEUE', at } };
    given(reportDecider, [requested, submitted])
      .when({ type: 'RecordStatus', provider_status: 'IN_QUEUE', at })
      .then([checked]);
    given(reportDecider, [requested, submitted, checked])
      .when({ type: 'RecordStatus', provider_status: 'IN_QUEUE', at })
      .then([]);
    const refresh: ReportEvent = { type: 'ReportRefreshRequested', data: { by: 'u1', at } };
    given(reportDecider, [requested, submitted, checked])
      .when({ type: 'RecordStatus', provider_status: 'IN_QUEUE', at: later })
      .then([]);
    given(reportDecider, [requested, submitted, checked, refresh])
      .when({ type: 'RecordStatus', provider_status: 'IN_QUEUE', at: later })
      .then([{ type: 'ReportStatusChecked', data: { provider_status: 'IN_QUEUE', at: later } }]);
  });

  it('schedules a refresh only for a known provider id and an open request, once until checked', () => {
    given(reportDecider, [requested]).when({ type: 'RequestRefresh', by: 'u1', at }).then([]);
    given(reportDecider, [requested, submitted])
      .when({ type: 'RequestRefresh', by: 'u1', at })
      .then([{ type: 'ReportRefreshRequested', data: { by: 'u1', at } }]);
    given(reportDecider, [requested, submitted, { type: 'ReportRefreshRequested', data: { by: 'u1', at } }])
      .when({ type: 'RequestRefresh', by: 'u1', at: later })
      .then([]);
    given(reportDecider, [requested, submitted, stored, finalized])
      .when({ type: 'RequestRefresh', by: 'u1', at })
      .then([]);
    const state = [requested, submitted, stored, finalized].reduce(reportDecider.evolve, reportDecider.initialState());
    expect(refreshable(state)).to.equal(false);
  });

  it('stores the artifact once, finalizes once (never scheduling ingestion), then records the completion once', () => {
    given(reportDecider, [requested, submitted]).when({ type: 'StoreArtifact', artifact, at: later }).then([stored]);
    given(reportDecider, [requested, submitted, stored]).when({ type: 'StoreArtifact', artifact, at: later }).then([]);
    given(reportDecider, [requested, submitted, stored])
      .when({ type: 'Finalize', provider_status: 'DONE', error: null, at: later })
      .then([finalized]);
    given(reportDecider, [requested, submitted, stored, finalized])
      .when({ type: 'Finalize', provider_status: 'FATAL', error: 'x', at: later })
      .then([]);
    given(reportDecider, [requested, submitted, stored, finalized])
      .when({ type: 'MarkCompletionRecorded', at: later })
      .then([{ type: 'ReportCompletionRecorded', data: { at: later } }]);
  });

  it('replays the same input under a key and refuses another with idempotency_conflict', () => {
    expect(replayVerdict(request, 'f1')).to.equal('replay');
    expect(() => replayVerdict(request, 'f2'))
      .to.throw(DomainError)
      .with.property('code', 'idempotency_conflict');
  });

  it('shows the receipt as spec 2.11 describes it', () => {
    const state = [requested, submitted, stored, finalized].reduce(reportDecider.evolve, reportDecider.initialState());
    expect(reportView(state)).to.include({
      status: 'completed',
      provider_status: 'DONE',
      ingestion_status: 'not_scheduled',
      byte_size: 120,
      has_continuation: true,
      completed_at: later,
    });
    const queued = reportView([requested].reduce(reportDecider.evolve, reportDecider.initialState()));
    expect(queued).to.include({ status: 'queued', byte_size: null, checksum: null, has_continuation: false });
  });
});
