import { expect } from 'chai';
import {
  automationRunDecider,
  MAX_MESSAGE_CHARS,
  type AutomationRunCommand,
  type MutationOutcome,
} from '../../src/domain/automation-run/decide.js';
import {
  automationRunId,
  NO_ACTION_FIELDS,
  type AutomationAction,
  type AutomationRunEvent,
  type WarningSlotEvent,
} from '../../src/domain/automation-run/events.js';
import { warningSlotDecider } from '../../src/domain/automation-run/warning-slot.js';
import {
  appliedListingAction,
  at,
  automation_id,
  listing,
  quietReport,
  receipt_id,
  recordedRun,
  run,
  run_id,
} from '../support/automation-run.js';
import { given } from '../support/gwt.js';

// spec 3.3 and 2.10, row by row: a live run's actions as new decisions, a queued action's answer,
// the warning of spec 4.11.3, and recording the same run twice.

const campaign = { type: 'Campaign', id: 'c0c0c0c0-0000-4000-8000-000000000002' };

type Record = Extract<AutomationRunCommand, { type: 'RecordAutomationRun' }>;
const record = (over: Partial<Record> = {}): Record => ({
  type: 'RecordAutomationRun',
  run_id,
  run,
  at,
  warning_slot: false,
  ...quietReport(),
  ...over,
});
const none = NO_ACTION_FIELDS;
const recorded = recordedRun;
const priceUpdate: MutationOutcome = { status: 'applied', receipt_id, value: 15.27, action: 'update', target: listing };
const appliedAction = appliedListingAction;
const queuedAction: AutomationAction = {
  ...none,
  index: 0,
  kind: 'mutation',
  status: 'queued',
  value: 1.5,
  action: 'update',
  target_type: 'Campaign',
  target_id: campaign.id,
};
const settle = (over: object): AutomationRunCommand =>
  ({ type: 'SettleAutomationAction', run_id, index: 0, at, ...over }) as AutomationRunCommand;

describe('automation run decider (spec 2.10, 3.3)', () => {
  it('a run is keyed by automation, version, event and listing', () => {
    expect(automationRunId(run)).to.equal(run_id);
    expect(automationRunId({ ...run, automation_version: 4 })).to.not.equal(run_id);
    expect(automationRunId({ ...run, listing_id: null })).to.not.equal(run_id);
    expect(automationRunId({ ...run, event_id: 'evt-2' })).to.not.equal(run_id);
  });

  describe('(new decision)', () => {
    it('each pushed change becomes a mutation action with its status, value, receipt and listing fields', () =>
      given(automationRunDecider, [])
        .when(
          record({
            mutations: [
              priceUpdate,
              {
                status: 'failed',
                error_message: 'payload.patches: must not be empty',
                action: 'update',
                target: listing,
              },
              { status: 'blocked', error_message: 'the listing is blocked', action: 'update', target: listing },
              { status: 'queued', value: 1.5, action: 'update', target: campaign },
            ],
            store_changes: 1,
          }),
        )
        .then([
          recorded(
            [
              appliedAction,
              {
                ...appliedAction,
                index: 1,
                status: 'failed',
                error_message: 'payload.patches: must not be empty',
                value: null,
                receipt_id: null,
              },
              {
                ...appliedAction,
                index: 2,
                status: 'blocked',
                error_message: 'the listing is blocked',
                value: null,
                receipt_id: null,
              },
              { ...queuedAction, index: 3 },
            ],
            { store_changes: 1 },
          ),
        ]));

    it('a campaign target carries no listing fields, an Ad target does', () =>
      given(automationRunDecider, [])
        .when(
          record({
            mutations: [
              {
                status: 'blocked',
                error_message: 'automation switch off',
                action: 'update',
                target: { ...campaign, asin: 'B0X' },
              },
              { status: 'applied', receipt_id, action: 'update', target: { ...listing, type: 'Ad', id: 'ad-1' } },
            ],
          }),
        )
        .then([
          recorded([
            {
              ...none,
              index: 0,
              kind: 'mutation',
              status: 'blocked',
              error_message: 'automation switch off',
              action: 'update',
              target_type: 'Campaign',
              target_id: campaign.id,
            },
            { ...appliedAction, index: 1, value: null, target_type: 'Ad', target_id: 'ad-1' },
          ]),
        ]));

    it('refuses an applied change without its receipt, a failed one without a reason, and a value that is no number', () => {
      given(automationRunDecider, [])
        .when(record({ mutations: [{ status: 'applied', target: listing }] }))
        .thenThrows('invalid', /change 0: an applied change names its receipt/);
      given(automationRunDecider, [])
        .when(record({ mutations: [priceUpdate, { status: 'failed', target: listing }] }))
        .thenThrows('invalid', /change 1: a failed change says why/);
      given(automationRunDecider, [])
        .when(record({ mutations: [{ ...priceUpdate, value: Number.NaN }] }))
        .thenThrows('invalid', /value NaN is not a finite number/);
    });

    it('a failed run is recorded with its error, bounded in length', () =>
      given(automationRunDecider, [])
        .when(record({ error_message: 'x'.repeat(5_000) }))
        .then([recorded([], { error_message: `${'x'.repeat(MAX_MESSAGE_CHARS - 1)}…` })]));

    it('recording the same run twice records nothing', () =>
      given(automationRunDecider, [recorded([appliedAction])])
        .when(record({ mutations: [priceUpdate, priceUpdate] }))
        .then([]));
  });

  describe('warning (spec 4.11.3)', () => {
    const missing = ['payload', 'Payload.Offers'];
    const warning = (error_message: string | null = null): AutomationAction => ({
      ...none,
      index: 0,
      kind: 'warning',
      status: null,
      error_message,
      missing_fields: missing,
    });

    it('a run that changed nothing and read a missing top-level key warns, listing every missing key it read', () =>
      given(automationRunDecider, [])
        .when(record({ missing_fields: [...missing, 'payload'], warning_slot: true }))
        .then([recorded([warning()], { missing_fields: missing })]));

    it("a failed run changed nothing too: its warning carries the run's error", () =>
      given(automationRunDecider, [])
        .when(
          record({
            error_message: "TypeError: Cannot read properties of undefined (reading 'Offers')",
            missing_fields: missing,
            warning_slot: true,
          }),
        )
        .then([
          recorded([warning("TypeError: Cannot read properties of undefined (reading 'Offers')")], {
            error_message: "TypeError: Cannot read properties of undefined (reading 'Offers')",
            missing_fields: missing,
          }),
        ]));

    it("no warning when the day's warning slot is another run's", () =>
      given(automationRunDecider, [])
        .when(record({ missing_fields: missing, warning_slot: false }))
        .then([recorded([], { missing_fields: missing })]));

    it('no warning when only nested keys were missing', () =>
      given(automationRunDecider, [])
        .when(record({ missing_fields: ['Payload.Offers', 'Payload.Summary[0].x'], warning_slot: true }))
        .then([recorded([], { missing_fields: ['Payload.Offers', 'Payload.Summary[0].x'] })]));

    it('no warning when the run changed something: a push, a store write or a webhook post', () => {
      for (const changed of [{ mutations: [priceUpdate] }, { store_changes: 1 }, { webhook_posts: 1 }])
        given(automationRunDecider, [])
          .when(record({ missing_fields: missing, warning_slot: true, ...changed }))
          .then([
            recorded('mutations' in changed ? [appliedAction] : [], {
              missing_fields: missing,
              ...('mutations' in changed ? {} : changed),
            }),
          ]);
    });
  });

  describe('queued', () => {
    const queuedRun = recorded([queuedAction]);

    it('the marketplace accepts: applied, with its receipt', () =>
      given(automationRunDecider, [queuedRun])
        .when(settle({ status: 'applied', receipt_id }))
        .then([
          {
            type: 'AutomationActionSettled',
            data: { index: 0, status: 'applied', receipt_id, error_message: null, at },
          },
        ]));

    it('the marketplace refuses: failed, with error_message set', () => {
      given(automationRunDecider, [queuedRun])
        .when(settle({ status: 'failed', error_message: 'BID_OUT_OF_RANGE' }))
        .then([
          {
            type: 'AutomationActionSettled',
            data: { index: 0, status: 'failed', receipt_id: null, error_message: 'BID_OUT_OF_RANGE', at },
          },
        ]);
      given(automationRunDecider, [queuedRun])
        .when(settle({ status: 'failed' }))
        .thenThrows('invalid', /says why/);
    });

    it('throttling or server errors: stays queued, nothing recorded', () =>
      given(automationRunDecider, [queuedRun])
        .when(settle({ status: 'queued' }))
        .then([]));

    it('only a queued mutation action is settled', () => {
      const settled: AutomationRunEvent = {
        type: 'AutomationActionSettled',
        data: { index: 0, status: 'applied', receipt_id, error_message: null, at },
      };
      given(automationRunDecider, [queuedRun, settled])
        .when(settle({ status: 'failed', error_message: 'late' }))
        .thenThrows('invalid', /action 0: only a queued mutation action is settled; this one is applied/);
      given(automationRunDecider, [recorded([appliedAction])])
        .when(settle({ status: 'queued' }))
        .thenThrows('invalid', /this one is applied/);
      given(automationRunDecider, [
        recorded([{ ...none, index: 0, kind: 'warning', status: null, missing_fields: ['x'] }]),
      ])
        .when(settle({ status: 'applied', receipt_id }))
        .thenThrows('invalid', /this one is a warning/);
      given(automationRunDecider, [queuedRun])
        .when(settle({ index: 1, status: 'applied' }))
        .thenThrows('invalid', /has no action 1$/);
      given(automationRunDecider, [])
        .when(settle({ status: 'applied' }))
        .thenThrows('invalid', /has no action 0 \(the run is not recorded\)/);
    });
  });
});

describe('automation warning slot (spec 4.11.3: one warning a day per automation)', () => {
  const claim = (runId: string) => ({
    type: 'ClaimWarning' as const,
    automation_id,
    day: '2026-11-25',
    run_id: runId,
    at,
  });
  const claimed = (runId: string): WarningSlotEvent => ({
    type: 'AutomationWarningClaimed',
    data: { automation_id, day: '2026-11-25', run_id: runId, at },
  });
  it('the first run to claim the day holds it', () =>
    given(warningSlotDecider, [])
      .when(claim(run_id))
      .then([claimed(run_id)]));
  it('a later claim that day records nothing, by another run or by the holder again', () => {
    given(warningSlotDecider, [claimed(run_id)])
      .when(claim(automationRunId({ ...run, event_id: 'evt-9' })))
      .then([]);
    given(warningSlotDecider, [claimed(run_id)])
      .when(claim(run_id))
      .then([]);
  });
});
