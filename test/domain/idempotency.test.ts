import { expect } from 'chai';
import {
  idempotencyEventSchemas,
  type IdempotencyEvent,
  type IdempotencyKeyUsed,
} from '../../src/domain/admission/events.js';
import {
  IDEMPOTENCY_TTL_MS,
  idempotencyDecider,
  idempotencyVerdict,
  type IdempotencyCommand,
} from '../../src/domain/admission/idempotency.js';
import { fingerprint } from '../../src/domain/admission/rules.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { given } from '../support/gwt.js';

// An idempotency key (spec 4.8) in every state it can be in: the verdict a call gets (admit,
// replay, or idempotency_conflict) and what recording the call's answer does.

const at = '2026-11-20T10:00:00.000Z';
const later = (ms: number) => new Date(Date.parse(at) + ms).toISOString();
const used = (over: Partial<IdempotencyKeyUsed> = {}): IdempotencyKeyUsed => ({
  namespace: 'u',
  key: 'k',
  fingerprint: fingerprint({ a: 1 }),
  expires_at: later(IDEMPOTENCY_TTL_MS),
  results: [],
  admissions: [],
  ...over,
});
const usedEvent = (over: Partial<IdempotencyKeyUsed> = {}): IdempotencyEvent => ({
  type: 'IdempotencyKeyUsed',
  data: used(over),
});
const expiry = later(IDEMPOTENCY_TTL_MS);

// A call with input { a: 1 } at `at`, in each state of its key.
const STATES: Record<string, { history: IdempotencyEvent[]; verdict: 'admit' | 'replay' | 'idempotency_conflict' }> = {
  'never used': { history: [], verdict: 'admit' },
  'used with this input': { history: [usedEvent()], verdict: 'replay' },
  'used with another input': {
    history: [usedEvent({ fingerprint: fingerprint({ a: 2 }) })],
    verdict: 'idempotency_conflict',
  },
  'used with this input, expired': { history: [usedEvent({ expires_at: at })], verdict: 'admit' },
  'used with another input, expired': {
    history: [usedEvent({ fingerprint: fingerprint({ a: 2 }), expires_at: at })],
    verdict: 'admit',
  },
  'used again after expiry with another input': {
    history: [usedEvent({ expires_at: at }), usedEvent({ fingerprint: fingerprint({ a: 2 }) })],
    verdict: 'idempotency_conflict',
  },
};

const record: IdempotencyCommand = {
  type: 'RecordKeyUse',
  use: used({ results: [{ receipt_id: '7e57a000-0000-4000-8000-00000000a001' }] }),
  at,
};

describe('idempotency key decider: every state x RecordKeyUse', () => {
  for (const [name, { history, verdict }] of Object.entries(STATES)) {
    const state = history.reduce(idempotencyDecider.evolve, idempotencyDecider.initialState());
    it(`${name}: a call with the key gets ${verdict}`, () => {
      if (verdict === 'idempotency_conflict') {
        expect(() => idempotencyVerdict(state, fingerprint({ a: 1 }), at))
          .to.throw(DomainError)
          .with.property('code', 'idempotency_conflict');
      } else expect(idempotencyVerdict(state, fingerprint({ a: 1 }), at)).to.equal(verdict);
    });
    if (verdict === 'admit')
      it(`${name} + RecordKeyUse: records IdempotencyKeyUsed`, () =>
        given(idempotencyDecider, history)
          .when(record)
          .then([{ type: 'IdempotencyKeyUsed', data: record.use }]));
    else if (verdict === 'replay')
      it(`${name} + RecordKeyUse: refused as busy (the answer recorded meanwhile stands)`, () =>
        given(idempotencyDecider, history)
          .when(record)
          .thenThrows('busy', /retry to get its answer/));
    else
      it(`${name} + RecordKeyUse: refused as idempotency_conflict, naming the key and its expiry`, () => {
        const refusal = given(idempotencyDecider, history)
          .when(record)
          .thenThrows('idempotency_conflict', /^idempotency_key 'k' was used at least once with a different input/);
        expect(refusal.extra).to.deep.equal({ argument: 'idempotency_key', expires_at: expiry });
      });
  }

  it('the answer expires at expires_at exactly', () => {
    const state = { used: used() };
    expect(idempotencyVerdict(state, fingerprint({ a: 2 }), expiry), 'expired: a new use').to.equal('admit');
    expect(idempotencyVerdict(state, fingerprint({ a: 1 }), later(IDEMPOTENCY_TTL_MS - 1))).to.equal('replay');
  });

  it('the recorded use fits its schema', () =>
    expect(idempotencyEventSchemas.IdempotencyKeyUsed.safeParse(record.use).success).to.equal(true));
});
