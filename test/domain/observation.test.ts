import { expect } from 'chai';
import { given } from '../support/gwt.js';
import { hashRows, observationDecider } from '../../src/domain/observation/decide.js';
import { canonicalJson } from '../../src/domain/shared/canonical.js';
import type { ObservationEvent } from '../../src/domain/observation/events.js';

const key = { account_id: '7e57a000-0000-4000-8000-000000000001', dataset: 'listings', scope: 'ATVPDKIKX0DER' };
const at = '2026-11-22T00:00:00.000Z';
const rows = [{ sku: 'A-1', price: { amount: 15.27 } }];
const observed: ObservationEvent = {
  type: 'PageObserved',
  data: { ...key, page: 0, hash: hashRows(rows), rows, observed_at: at },
};

describe('observation decider', () => {
  it('records a first page with the hash of its rows', () =>
    given(observationDecider, [])
      .when({ type: 'ObservePage', ...key, page: 0, rows, observed_at: at })
      .then([observed]));
  it('records nothing when the page is unchanged, whatever the key order', () =>
    given(observationDecider, [observed])
      .when({
        type: 'ObservePage',
        ...key,
        page: 0,
        rows: [{ price: { amount: 15.27 }, sku: 'A-1' }],
        observed_at: '2026-11-23T00:00:00.000Z',
      })
      .then([]));
  it('records a changed page (a restated figure)', () => {
    const restated = [{ sku: 'A-1', price: { amount: 14.99 } }];
    given(observationDecider, [observed])
      .when({ type: 'ObservePage', ...key, page: 0, rows: restated, observed_at: at })
      .then([
        { type: 'PageObserved', data: { ...key, page: 0, hash: hashRows(restated), rows: restated, observed_at: at } },
      ]);
  });
  it('refuses a page number that is not one', () =>
    given(observationDecider, [])
      .when({ type: 'ObservePage', ...key, page: -1, rows, observed_at: at })
      .thenThrows('invalid', /page/));
  it('records a completion, then nothing while the page count stays', () => {
    const done: ObservationEvent = { type: 'SyncCompleted', data: { ...key, pages: 3, observed_at: at } };
    given(observationDecider, [])
      .when({ type: 'CompleteSync', ...key, pages: 3, observed_at: at })
      .then([done]);
    given(observationDecider, [done])
      .when({ type: 'CompleteSync', ...key, pages: 3, observed_at: at })
      .then([]);
    given(observationDecider, [done])
      .when({ type: 'CompleteSync', ...key, pages: 2, observed_at: at })
      .then([{ type: 'SyncCompleted', data: { ...key, pages: 2, observed_at: at } }]);
  });
  it('canonical JSON sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).to.equal('{"a":{"c":null,"d":[2,1]},"b":1}');
  });
});
