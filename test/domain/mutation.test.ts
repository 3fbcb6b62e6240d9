import { expect } from 'chai';
import { given } from '../support/gwt.js';
import { mutationDecider, type MutationCommand, type MutationCommandType } from '../../src/domain/mutation/decide.js';
import { mutationEventSchemas, STATUSES, type MutationEvent, type Status } from '../../src/domain/mutation/events.js';
import { evolve, initialState } from '../../src/domain/mutation/state.js';

// Spec 3.4 as given/when/then: every state a receipt can be in, times every command, each case
// asserted: a legal one records exactly the events below, an illegal one is refused as `invalid`
// naming the state and the command.

const receipt_id = '7e57a000-0000-4000-8000-00000000a001';
const account_id = '7e57a000-0000-4000-8000-000000000001';
const campaign = { type: 'Campaign' as const, id: '7e57a000-0000-4000-8000-0000000000c1' };
const t0 = '2026-11-20T10:00:00.000Z';
const t1 = '2026-11-20T10:00:01.000Z';
const t2 = '2026-11-20T10:00:02.000Z';
const at = (minutes: number) => new Date(Date.parse(t2) + minutes * 60_000).toISOString();

const update = {
  type: 'AdmitMutation',
  receipt_id,
  account_id,
  target: campaign,
  provider: { profileId: '3001', campaignId: '111' },
  action: 'update',
  payload: { state: 'PAUSED' },
  idempotency: null,
  created_at: t0,
  blocked: null,
} as const;
const creation = {
  ...update,
  action: 'create_ad_group',
  payload: { name: 'Exact', state: 'ENABLED', defaultBid: 0.75 },
} as const;

const admitted = (c: typeof update | typeof creation = update): MutationEvent => {
  const { type: _, ...data } = c;
  return { type: 'MutationAdmitted', data };
};
const started = (attempt = 1): MutationEvent => ({
  type: 'MutationDispatchStarted',
  data: { receipt_id, attempt, started_at: t1 },
});
const answer = {
  http_status: 207,
  response: { campaigns: { success: [{ index: 0, campaignId: '111' }], error: [] } },
  request_id: 'req-1',
  error: null,
  recorded_at: t2,
};
const lost = {
  http_status: null,
  response: null,
  request_id: 'req-1',
  error: { code: 'timeout', message: 'no reply within 30 s' },
  recorded_at: t2,
};
const submitted: MutationEvent = {
  type: 'MutationSubmitted',
  data: { receipt_id, attempt: 1, ...answer, submission_id: null, accepted: true, created: null },
};
const uncertain: MutationEvent = {
  type: 'MutationUncertain',
  data: { receipt_id, attempt: 1, ...lost, cause: 'reply_lost' },
};
const blocked: MutationEvent = {
  type: 'MutationBlocked',
  data: {
    receipt_id,
    reason: 'automation_switch_off',
    message: 'the campaign has its Automation switch off',
    recorded_at: t1,
  },
};
const adGroup = (n: number) => ({
  type: 'AdGroup' as const,
  id: `7e57a000-0000-4000-8000-0000000000d${n}`,
  providerId: `22${n}`,
});
const unresolved: MutationEvent = {
  type: 'MutationUnresolved',
  data: {
    receipt_id,
    reconciliation: {
      result: 'unresolved',
      attempts: 1,
      checkedAt: at(1),
      nextAt: null,
      candidates: [adGroup(1), adGroup(2)],
      cause: '2 entities appeared after the attempt that could each be this creation',
    },
  },
};

// One history per state; the creation variants reach the states only creations have.
const STATES: Record<string, { status: Status | null; history: MutationEvent[] }> = {
  'not admitted': { status: null, history: [] },
  queued: { status: 'queued', history: [admitted()] },
  submitting: { status: 'submitting', history: [admitted(), started()] },
  submitted: { status: 'submitted', history: [admitted(), started(), submitted] },
  blocked: { status: 'blocked', history: [admitted(), blocked] },
  uncertain: { status: 'uncertain', history: [admitted(creation), started(), uncertain] },
  'uncertain change': { status: 'uncertain', history: [admitted(), started(), uncertain] },
  unresolved: { status: 'unresolved', history: [admitted(creation), started(), uncertain, unresolved] },
};

const COMMANDS: Record<MutationCommandType, MutationCommand> = {
  AdmitMutation: update,
  StartDispatch: { type: 'StartDispatch', receipt_id, started_at: t1 },
  RecordSubmission: {
    type: 'RecordSubmission',
    receipt_id,
    ...answer,
    submission_id: null,
    accepted: true,
    created: null,
  },
  RecordRetryableRejection: {
    type: 'RecordRetryableRejection',
    receipt_id,
    http_status: 429,
    response: { code: 'TOO_MANY_REQUESTS' },
    request_id: 'req-1',
    error: { code: '429', message: 'throttled' },
    recorded_at: t2,
  },
  BlockMutation: {
    type: 'BlockMutation',
    receipt_id,
    reason: 'automation_switch_off',
    message: 'the campaign has its Automation switch off',
    recorded_at: t1,
  },
  RecordUncertain: { type: 'RecordUncertain', receipt_id, ...lost, cause: 'reply_lost' },
  ReconcileCreation: { type: 'ReconcileCreation', receipt_id, checks: 0, candidates: [adGroup(1)], checked_at: at(1) },
  ReconcileChange: {
    type: 'ReconcileChange',
    receipt_id,
    checks: 0,
    shows: true,
    unchanged: false,
    observed: { campaignId: '111', state: 'PAUSED' },
    checked_at: at(1),
  },
  RecordTargetDeleted: { type: 'RecordTargetDeleted', receipt_id, recorded_at: t2 },
};

// The legal cells of the table (spec 3.4) with what each records; every other cell is refused.
const LEGAL: Partial<Record<string, Partial<Record<MutationCommandType, MutationEvent[]>>>> = {
  'not admitted': { AdmitMutation: [admitted()] },
  queued: {
    StartDispatch: [started()],
    BlockMutation: [blocked],
    RecordUncertain: [{ type: 'MutationUncertain', data: { receipt_id, attempt: null, ...lost, cause: 'reply_lost' } }],
    RecordTargetDeleted: [
      {
        type: 'MutationBlocked',
        data: {
          receipt_id,
          reason: 'target_deleted',
          message: 'the marketplace deleted the target before this request was sent',
          recorded_at: t2,
        },
      },
    ],
  },
  submitting: {
    RecordSubmission: [submitted],
    RecordRetryableRejection: [
      {
        type: 'MutationRetryScheduled',
        data: {
          receipt_id,
          attempt: 1,
          http_status: 429,
          response: { code: 'TOO_MANY_REQUESTS' },
          request_id: 'req-1',
          error: { code: '429', message: 'throttled' },
          recorded_at: t2,
        },
      },
    ],
    RecordUncertain: [uncertain],
    RecordTargetDeleted: [{ type: 'MutationTargetDeleted', data: { receipt_id, recorded_at: t2 } }],
  },
  uncertain: {
    ReconcileCreation: [
      {
        type: 'MutationCreationConfirmed',
        data: {
          receipt_id,
          created: adGroup(1),
          reconciliation: {
            result: 'accepted',
            attempts: 1,
            checkedAt: at(1),
            nextAt: null,
            candidates: [adGroup(1)],
            cause: 'exactly one matching entity appeared after the attempt',
          },
        },
      },
    ],
    RecordTargetDeleted: [{ type: 'MutationTargetDeleted', data: { receipt_id, recorded_at: t2 } }],
  },
  'uncertain change': {
    ReconcileChange: [
      {
        type: 'MutationChangeConfirmed',
        data: {
          receipt_id,
          observed: { campaignId: '111', state: 'PAUSED' },
          reconciliation: {
            result: 'accepted',
            attempts: 1,
            checkedAt: at(1),
            nextAt: null,
            candidates: [],
            cause: 'the target read back shows every requested value',
          },
        },
      },
    ],
    RecordTargetDeleted: [{ type: 'MutationTargetDeleted', data: { receipt_id, recorded_at: t2 } }],
  },
};

describe('mutation receipt decider: every state x every command (spec 3.4)', () => {
  it('covers every workflow status', () =>
    expect([
      ...new Set(
        Object.values(STATES)
          .map((s) => s.status)
          .filter(Boolean),
      ),
    ]).to.have.members([...STATUSES]));
  for (const [name, { status, history }] of Object.entries(STATES)) {
    it(`the history of '${name}' folds to that status`, () =>
      expect(history.reduce(evolve, initialState()).status).to.equal(status));
    for (const [type, command] of Object.entries(COMMANDS) as [MutationCommandType, MutationCommand][]) {
      const expected = LEGAL[name]?.[type];
      if (expected) {
        it(`${name} + ${type}: records ${expected.map((e) => e.type).join(', ')}`, () => {
          given(mutationDecider, history).when(command).then(expected);
          for (const e of expected)
            expect(mutationEventSchemas[e.type].safeParse(e.data).error, `${e.type} fits its schema`).to.equal(
              undefined,
            );
        });
      }
      // a creation and a change are reconciled differently: the other command is refused too
      else
        it(`${name} + ${type}: refused`, () => {
          const refusal = given(mutationDecider, history)
            .when(command)
            .thenThrows(
              'invalid',
              new RegExp(`is ${status ?? 'not admitted'}: ${type} (is allowed only when|applies to)`),
            );
          expect(refusal.extra).to.include({ command: type }).and.not.have.property('stale');
          // a status that doesn't allow the command says so in a field (a creation's command on a change doesn't)
          expect(refusal.extra.illegal_transition).to.equal(
            /is allowed only when/.test(refusal.detail) ? true : undefined,
          );
        });
    }
  }
});

const fold = (events: MutationEvent[]) => events.reduce(evolve, initialState());

describe('mutation receipt decider: admission', () => {
  it('admits a receipt already blocked when the listing is blocked', () => {
    const command = {
      ...update,
      target: { type: 'Listing' as const, id: 'l-1' },
      payload: {
        productType: 'PRODUCT',
        patches: [
          {
            op: 'replace',
            path: '/attributes/purchasable_offer',
            value: [{ marketplace_id: 'ATVPDKIKX0DER', currency: 'USD', audience: 'ALL' }],
          },
        ],
      },
      blocked: { reason: 'listing_blocked' as const, message: 'automated changes are blocked for this listing' },
    };
    const { type: _, ...data } = command;
    given(mutationDecider, [])
      .when(command)
      .then([{ type: 'MutationAdmitted', data }]);
    const state = fold([{ type: 'MutationAdmitted', data }]);
    expect(state).to.include({ status: 'blocked', outcome: 'blocked' });
    expect(state.error).to.deep.equal({
      code: 'blocked',
      reason: 'listing_blocked',
      message: 'automated changes are blocked for this listing',
    });
  });
  it('refuses an action the target type does not take, naming both', () =>
    given(mutationDecider, [])
      .when({ ...update, action: 'create_ad' })
      .thenThrows('invalid', /create_ad does not apply to a Campaign target/));
  it('refuses a payload that fails its schema, naming the field', () =>
    given(mutationDecider, [])
      .when({ ...update, payload: { state: 'ARCHIVED' } })
      .thenThrows('invalid', /^payload\.state: /));
  it('refuses an offer patch without its selectors, naming the ones missing', () =>
    given(mutationDecider, [])
      .when({
        ...update,
        target: { type: 'Listing', id: 'l-1' },
        payload: {
          productType: 'PRODUCT',
          patches: [
            {
              op: 'merge',
              path: '/attributes/purchasable_offer',
              value: [{ marketplace_id: 'ATVPDKIKX0DER', our_price: [] }],
            },
          ],
        },
      })
      .thenThrows(
        'invalid',
        /^payload\.patches\.0\.value\.0: a purchasable_offer value needs the selectors currency, audience/,
      ));
  it('refuses flat fields in a listing update', () =>
    given(mutationDecider, [])
      .when({
        ...update,
        target: { type: 'Listing', id: 'l-1' },
        payload: {
          productType: 'PRODUCT',
          price: 19.99,
          patches: [{ op: 'delete', path: '/attributes/bullet_point', value: [] }],
        },
      })
      .thenThrows('invalid', /^payload: .*"price"/));
  it('refuses an update that changes nothing', () =>
    given(mutationDecider, [])
      .when({ ...update, payload: { campaignId: '111' } })
      .thenThrows('invalid', /at least one field/));
  it('refuses a campaign-level target that is not an exclusion', () =>
    given(mutationDecider, [])
      .when({
        ...update,
        action: 'create_target',
        payload: {
          targetType: 'KEYWORD',
          negative: false,
          state: 'ENABLED',
          targetDetails: { keywordTarget: { keyword: 'tea', matchType: 'EXACT' } },
        },
      })
      .thenThrows('invalid', /^payload\.negative: /));
  it('refuses a derived id that disagrees with the target, and accepts the same one', () => {
    given(mutationDecider, [])
      .when({ ...update, payload: { campaignId: '999', state: 'PAUSED' } })
      .thenThrows('scope_mismatch', /payload\.campaignId: '999' disagrees with the target's campaignId '111'/);
    const { type: _, ...data } = { ...update, payload: { campaignId: '111', state: 'PAUSED' } };
    given(mutationDecider, [])
      .when({ ...update, payload: { campaignId: '111', state: 'PAUSED' } })
      .then([{ type: 'MutationAdmitted', data }]);
  });
  it("refuses a new campaign's countries other than the profile's", () =>
    given(mutationDecider, [])
      .when({
        ...update,
        target: { type: 'AdvertisingProfile', id: 'p-1' },
        provider: { profileId: '3001', countryCode: 'JP' },
        action: 'create_campaign',
        payload: {
          name: 'Tea',
          targetingType: 'AUTO',
          state: 'ENABLED',
          budget: { budget: 1000, budgetType: 'DAILY' },
          countries: ['US'],
        },
      })
      .thenThrows('scope_mismatch', /only the profile's country JP/));
  it('a queued receipt has no outcome and no answer yet', () =>
    expect(fold([admitted()])).to.include({ status: 'queued', outcome: null, attempts: 0 }));
});

describe('mutation receipt decider: dispatch', () => {
  it('a start records the prior read and, for a listing patch sent with others, the receipts of the call in order', () => {
    const other = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    const prior = { purchasable_offer: [{ audience: 'ALL', our_price: [{ schedule: [{ value_with_tax: 9 }] }] }] };
    given(mutationDecider, [admitted()])
      .when({ type: 'StartDispatch', receipt_id, started_at: t1, prior, sent_with: [other, receipt_id] })
      .then([
        {
          type: 'MutationDispatchStarted',
          data: { receipt_id, attempt: 1, started_at: t1, prior, sent_with: [other, receipt_id] },
        },
      ]);
  });

  it('a known retryable rejection keeps the receipt queued with outcome retryable; the next dispatch is attempt 2', () => {
    const retry: MutationEvent = {
      type: 'MutationRetryScheduled',
      data: { receipt_id, attempt: 1, http_status: 429, response: {}, request_id: 'r', error: null, recorded_at: t2 },
    };
    expect(fold([admitted(), started(), retry])).to.include({ status: 'queued', outcome: 'retryable', attempts: 1 });
    given(mutationDecider, [admitted(), started(), retry])
      .when(COMMANDS.StartDispatch)
      .then([started(2)]);
    given(mutationDecider, [admitted(), started(), retry, started(2)])
      .when(COMMANDS.RecordSubmission)
      .then([{ ...submitted, data: { ...(submitted.data as object), attempt: 2 } } as MutationEvent]);
  });
  it('a rejection settles as submitted, accepted false, outcome rejected, with the provider error', () => {
    const error = { code: 'BID_OUT_OF_MARKET_PLACE_RANGE', message: 'bid must be between 0.02 and 1000' };
    const command = { ...COMMANDS.RecordSubmission, accepted: false, error } as MutationCommand;
    const expected: MutationEvent = {
      type: 'MutationSubmitted',
      data: { receipt_id, attempt: 1, ...answer, error, submission_id: null, accepted: false, created: null },
    };
    given(mutationDecider, [admitted(), started()]).when(command).then([expected]);
    expect(fold([admitted(), started(), expected])).to.include({ status: 'submitted', outcome: 'rejected' });
  });
  it('a creation the answer confirms records created; a non-creation cannot report one', () => {
    const command = { ...COMMANDS.RecordSubmission, created: adGroup(1) } as MutationCommand;
    const history = [admitted(creation), started()];
    given(mutationDecider, history)
      .when(command)
      .then([
        {
          type: 'MutationSubmitted',
          data: { receipt_id, attempt: 1, ...answer, submission_id: null, accepted: true, created: adGroup(1) },
        },
      ]);
    given(mutationDecider, [admitted(), started()])
      .when(command)
      .thenThrows('invalid', /update creates nothing/);
    given(mutationDecider, history)
      .when({ ...command, created: { ...adGroup(1), type: 'Ad' } } as MutationCommand)
      .thenThrows('invalid', /create_ad_group creates entities of type AdGroup/);
    given(mutationDecider, history)
      .when({ ...command, accepted: false } as MutationCommand)
      .thenThrows('invalid', /rejected submission created nothing/);
  });
  it('an uncertain receipt is never resent: a new dispatch is refused', () =>
    given(mutationDecider, [admitted(), started(), uncertain])
      .when(COMMANDS.StartDispatch)
      .thenThrows('invalid', /is uncertain: StartDispatch/));
  it('a blocked receipt is never released: nothing starts it again', () =>
    given(mutationDecider, [admitted(), blocked])
      .when(COMMANDS.StartDispatch)
      .thenThrows('invalid', /is blocked: StartDispatch/));
});

describe('mutation receipt decider: creation reconciliation', () => {
  const history = [admitted(creation), started(), uncertain];
  const reconcile = (
    candidates: ReturnType<typeof adGroup>[],
    minutes: number,
    next_at?: string,
    checks = 0,
  ): MutationCommand => ({
    type: 'ReconcileCreation',
    receipt_id,
    checks,
    candidates,
    checked_at: at(minutes),
    ...(next_at ? { next_at } : {}),
  });

  it('exactly one match settles as submitted with outcome accepted and created filled', () => {
    const [event] = mutationDecider.decide(reconcile([adGroup(1)], 1), fold(history));
    expect(fold([...history, event!])).to.deep.include({
      status: 'submitted',
      outcome: 'accepted',
      created: adGroup(1),
    });
  });
  it('several matches: unresolved (final), with the candidates listed', () => {
    given(mutationDecider, history)
      .when(reconcile([adGroup(1), adGroup(2)], 1))
      .then([unresolved]);
    expect(fold([...history, unresolved])).to.include({ status: 'unresolved', outcome: 'unresolved' });
  });
  it('no match before 10 minutes: stays uncertain, checked again at nextAt, attempts counted', () => {
    const first: MutationEvent = {
      type: 'MutationReconciliationChecked',
      data: {
        receipt_id,
        reconciliation: {
          result: 'pending',
          attempts: 1,
          checkedAt: at(2),
          nextAt: at(3),
          candidates: [],
          cause: 'no matching entity has appeared yet',
        },
      },
    };
    given(mutationDecider, history)
      .when(reconcile([], 2, at(3)))
      .then([first]);
    expect(fold([...history, first])).to.include({ status: 'uncertain', outcome: 'uncertain' });
    // without a next_at the check is due when the 10 minutes are up
    given(mutationDecider, [...history, first])
      .when(reconcile([], 9.5, undefined, 1))
      .then([
        {
          type: 'MutationReconciliationChecked',
          data: {
            receipt_id,
            reconciliation: {
              result: 'pending',
              attempts: 2,
              checkedAt: at(9.5),
              nextAt: at(10),
              candidates: [],
              cause: 'no matching entity has appeared yet',
            },
          },
        },
      ]);
  });
  it('no match 10 minutes after it became uncertain: settled as absent (status submitted, outcome absent)', () => {
    const absent: MutationEvent = {
      type: 'MutationCreationAbsent',
      data: {
        receipt_id,
        reconciliation: {
          result: 'absent',
          attempts: 1,
          checkedAt: at(10),
          nextAt: null,
          candidates: [],
          cause: 'no matching entity appeared within 10 minutes of the attempt',
        },
      },
    };
    given(mutationDecider, history).when(reconcile([], 10)).then([absent]);
    expect(fold([...history, absent])).to.include({ status: 'submitted', outcome: 'absent' });
  });
  it('an uncertain non-creation is not reconciled', () =>
    given(mutationDecider, [admitted(), started(), uncertain])
      .when(reconcile([], 10))
      .thenThrows('invalid', /applies to creations only/));
  it('a check that began before another one was recorded is stale: refused, the recorded one stands', () => {
    const first = mutationDecider.decide(reconcile([], 2, at(3)), fold(history));
    const refusal = given(mutationDecider, [...history, ...first])
      .when(reconcile([], 2.5, at(3.5)))
      .thenThrows('invalid', /is stale: it began after 0 checks and the receipt has had 1/);
    // the reconciler tells a lost race from a real refusal by these, not by the words
    expect(refusal.extra).to.include({ stale: true, status: 'uncertain', command: 'ReconcileCreation' });
  });
  it('a candidate of the wrong type is refused', () =>
    given(mutationDecider, history)
      .when(reconcile([{ ...adGroup(1), type: 'Campaign' } as never], 1))
      .thenThrows('invalid', /creates entities of type AdGroup/));
});

describe('mutation receipt decider: verifying an uncertain change', () => {
  const history = [admitted(), started(), uncertain];
  /** what the read-back shows: the requested state, the prior one (or nothing: gone), or a third */
  type Seen = 'requested' | 'prior' | 'neither';
  const verify = (seen: Seen | boolean, minutes: number, next_at?: string): MutationCommand => {
    const s: Seen = seen === true ? 'requested' : seen === false ? 'prior' : seen;
    return {
      type: 'ReconcileChange',
      receipt_id,
      checks: 0,
      shows: s === 'requested',
      unchanged: s === 'prior',
      observed: { campaignId: '111', state: { requested: 'PAUSED', prior: 'ENABLED', neither: 'ARCHIVED' }[s] },
      checked_at: at(minutes),
      ...(next_at ? { next_at } : {}),
    };
  };

  it('the target shows every requested value: settled as submitted with outcome accepted, what was seen kept', () => {
    const [event] = mutationDecider.decide(verify(true, 1), fold(history));
    expect(event).to.deep.include({ type: 'MutationChangeConfirmed' });
    expect(event!.data).to.deep.include({ observed: { campaignId: '111', state: 'PAUSED' } });
    expect(fold([...history, event!])).to.deep.include({ status: 'submitted', outcome: 'accepted', created: null });
  });
  it('still showing what it showed before: stays uncertain (still holding the target), checked again at nextAt', () => {
    given(mutationDecider, history)
      .when(verify('prior', 1, at(2)))
      .then([
        {
          type: 'MutationReconciliationChecked',
          data: {
            receipt_id,
            observed: { campaignId: '111', state: 'ENABLED' },
            reconciliation: {
              result: 'pending',
              attempts: 1,
              checkedAt: at(1),
              nextAt: at(2),
              candidates: [],
              cause: 'the target still shows what it showed before the request',
            },
          },
        },
      ]);
  });
  /** the one event a check decides, its type and reconciliation */
  const checkOnce = (seen: Seen, minutes: number, next_at?: string) => {
    const [event] = mutationDecider.decide(verify(seen, minutes, next_at), fold(history));
    return {
      event: event!,
      type: event!.type,
      reconciliation: (event!.data as { reconciliation: unknown }).reconciliation,
    };
  };
  const candidate = [{ observed: { campaignId: '111', state: 'ARCHIVED' } }];

  it('still showing what it showed before 10 minutes after it became uncertain: settled as absent, accepted false', () => {
    const { event, type, reconciliation } = checkOnce('prior', 10);
    expect(type).to.equal('MutationChangeAbsent');
    expect(reconciliation).to.deep.include({ result: 'absent', nextAt: null });
    expect(fold([...history, event])).to.include({ status: 'submitted', outcome: 'absent' });
  });
  it('showing neither the requested nor the prior values: in doubt until the 10 minutes, never absent', () => {
    const { type, reconciliation } = checkOnce('neither', 1, at(2));
    expect(type).to.equal('MutationReconciliationChecked');
    expect(reconciliation).to.deep.include({ result: 'pending', nextAt: at(2), candidates: candidate });
  });
  it('showing neither after 10 minutes: unresolved (final), the values it shows as the candidate', () => {
    const { event, type, reconciliation } = checkOnce('neither', 10);
    expect(type).to.equal('MutationUnresolved');
    expect(reconciliation).to.deep.include({ result: 'unresolved', nextAt: null, candidates: candidate });
    expect(fold([...history, event])).to.include({ status: 'unresolved', outcome: 'unresolved' });
  });
  it('a creation is reconciled by what it made, not verified', () =>
    given(mutationDecider, [admitted(creation), started(), uncertain])
      .when(verify(true, 1))
      .thenThrows('invalid', /is a creation \(use ReconcileCreation\)/));
});

describe('mutation receipt decider: target deleted by the marketplace', () => {
  it('a submission under way stays submitting, and its answer is still recorded', () => {
    const deleted: MutationEvent = { type: 'MutationTargetDeleted', data: { receipt_id, recorded_at: t2 } };
    expect(fold([admitted(), started(), deleted])).to.include({ status: 'submitting', target_deleted: true });
    given(mutationDecider, [admitted(), started(), deleted]).when(COMMANDS.RecordUncertain).then([uncertain]);
  });
  it('recorded once: a second report changes nothing', () =>
    given(mutationDecider, [
      admitted(creation),
      started(),
      uncertain,
      { type: 'MutationTargetDeleted', data: { receipt_id, recorded_at: t2 } } as MutationEvent,
    ])
      .when(COMMANDS.RecordTargetDeleted)
      .then([]));
  it('a queued receipt becomes blocked with reason target_deleted', () => {
    const [event] = mutationDecider.decide(COMMANDS.RecordTargetDeleted, fold([admitted()]));
    expect(fold([admitted(), event!])).to.deep.include({
      status: 'blocked',
      outcome: 'blocked',
      error: {
        code: 'blocked',
        reason: 'target_deleted',
        message: 'the marketplace deleted the target before this request was sent',
      },
    });
  });
});
