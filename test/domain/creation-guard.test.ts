import { expect } from 'chai';
import { creationEventSchemas, type CreationEvent } from '../../src/domain/admission/events.js';
import {
  creationGuardDecider,
  creationStreamId,
  type RequestCreation,
} from '../../src/domain/admission/creation-guard.js';
import { STATUSES, type Status } from '../../src/domain/mutation/events.js';
import { given } from '../support/gwt.js';

// Identical creations (spec 3.4): a new one is refused while the last identical one is pending
// (queued, submitting, uncertain), in every state the guard and its last receipt can be in.

const at = '2026-11-20T10:00:00.000Z';
const first = '7e57a000-0000-4000-8000-00000000a001';
const second = '7e57a000-0000-4000-8000-00000000a002';
const requested = (receipt_id: string): CreationEvent => ({ type: 'CreationRequested', data: { receipt_id, at } });
const request = (last_status: Status | null): RequestCreation => ({
  type: 'RequestCreation',
  receipt_id: second,
  action: 'create_ad_group',
  target_type: 'Campaign',
  at,
  last_status,
});
const PENDING: readonly Status[] = ['queued', 'submitting', 'uncertain'];

describe('creation guard decider: every state x RequestCreation', () => {
  it('never requested: records the request', () =>
    given(creationGuardDecider, [])
      .when(request(null))
      .then([requested(second)]));
  it("requested, but the last receipt's admission never completed: records the request", () =>
    given(creationGuardDecider, [requested(first)])
      .when(request(null))
      .then([requested(second)]));
  for (const status of STATUSES) {
    if (PENDING.includes(status))
      it(`the last receipt is ${status}: refused, naming it`, () => {
        const refusal = given(creationGuardDecider, [requested(first)])
          .when(request(status))
          .thenThrows(
            'invalid',
            new RegExp(
              `^an identical create_ad_group on this Campaign is already ${status} \\(receipt ${first}\\); it is refused until that one settles$`,
            ),
          );
        expect(refusal.extra).to.deep.equal({ pending_receipt_id: first });
      });
    else
      it(`the last receipt is ${status} (settled): records the request`, () =>
        given(creationGuardDecider, [requested(first)])
          .when(request(status))
          .then([requested(second)]));
  }
  it('the state names the latest request', () => {
    const history = [requested(first), requested(second)];
    expect(history.reduce(creationGuardDecider.evolve, creationGuardDecider.initialState())).to.deep.equal({
      last: second,
    });
    expect(creationEventSchemas.CreationRequested.safeParse(requested(first).data).success).to.equal(true);
  });

  it('an identical creation is the same account, parent, action and payload, whatever the key order', () => {
    const t = { type: 'Campaign', id: 'c1' };
    expect(creationStreamId('a', t, 'create_ad_group', { name: 'n', state: 'ENABLED' })).to.equal(
      creationStreamId('a', t, 'create_ad_group', { state: 'ENABLED', name: 'n' }),
    );
    expect(creationStreamId('a', t, 'create_ad_group', { name: 'n' })).to.not.equal(
      creationStreamId('a', { ...t, id: 'c2' }, 'create_ad_group', { name: 'n' }),
    );
    expect(creationStreamId('a', t, 'create_ad_group', { name: 'n' })).to.not.equal(
      creationStreamId('b', t, 'create_ad_group', { name: 'n' }),
    );
  });
});
