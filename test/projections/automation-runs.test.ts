import type { AutomationAction, AutomationRunEvent } from '../../src/domain/automation-run/events.js';
import { automationActionId } from '../../src/domain/automation-run/events.js';
import { createDb } from '../../src/infra/db.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { assertApplyTwiceSameResult, inStream, projectionSpec, recordedEvents } from '../support/projections.js';

// The automation runs read model, event by event (spec 2.10, 3.3): a row per run, a row per
// action, and a queued action's answer.

const run_id = '7a1e6a52-3c1d-5b0e-9f00-1d2c3b4a5f60';
const automation_id = '0b7d2c10-1111-4222-8333-944444444444';
const account_id = '5d1f4e1a-8a43-4f51-9d2a-6f1f1f1f1f1f';
const receipt_id = '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c';
const at = '2026-11-25T10:00:00.000Z';
const later = '2026-11-25T10:05:00.000Z';
const none = {
  error_message: null,
  value: null,
  action: null,
  target_type: null,
  target_id: null,
  receipt_id: null,
  asin: null,
  sku: null,
  marketplace_id: null,
  title: null,
  missing_fields: null,
};
const actions: AutomationAction[] = [
  {
    ...none,
    index: 0,
    kind: 'mutation',
    status: 'applied',
    value: 15.27,
    action: 'update',
    target_type: 'Listing',
    target_id: 'l-1',
    receipt_id,
    asin: 'B0TEST0001',
    sku: 'SKU-1',
    marketplace_id: 'ATVPDKIKX0DER',
    title: 'Walnut desk organizer',
  },
  {
    ...none,
    index: 1,
    kind: 'mutation',
    status: 'queued',
    value: 1.5,
    action: 'update',
    target_type: 'Campaign',
    target_id: 'c-1',
  },
  { ...none, index: 2, kind: 'warning', status: null, missing_fields: ['payload'] },
];
const recorded = inStream(`automation_run-${run_id}`, [
  {
    type: 'AutomationRunRecorded',
    data: {
      run_id,
      automation_id,
      automation_version: 2,
      account_id,
      stream_type: 'ANY_OFFER_CHANGED',
      event_id: 'evt-1',
      listing_id: 'l-1',
      at,
      error_message: null,
      missing_fields: ['payload'],
      store_changes: 0,
      webhook_posts: 0,
      actions,
    },
  } satisfies AutomationRunEvent,
]);
const settled = (data: Extract<AutomationRunEvent, { type: 'AutomationActionSettled' }>['data']) =>
  inStream(`automation_run-${run_id}`, [{ type: 'AutomationActionSettled', data }]);

const given = projectionSpec(automationRunsProjection);

describe('automation runs projection', () => {
  it('a recorded run is one run row and one row per action, decided at the run', async () => {
    const when = given([]).when(recorded);
    await when.then('automation_runs', [
      {
        run_id,
        automation_id,
        automation_version: 2,
        account_id,
        event_id: 'evt-1',
        listing_id: 'l-1',
        actions: 3,
        warned: true,
        missing_fields: ['payload'],
        at,
      },
    ]);
    await when.then('automation_actions', [
      {
        id: automationActionId(run_id, 0),
        kind: 'mutation',
        status: 'applied',
        value: 15.27,
        receipt_id,
        asin: 'B0TEST0001',
        title: 'Walnut desk organizer',
        account_id,
        decided_at: at,
        updated_at: at,
      },
      {
        id: automationActionId(run_id, 1),
        kind: 'mutation',
        status: 'queued',
        value: 1.5,
        receipt_id: null,
        asin: null,
        title: null,
        account_id,
        decided_at: at,
        updated_at: at,
      },
      {
        id: automationActionId(run_id, 2),
        kind: 'warning',
        status: null,
        value: null,
        receipt_id: null,
        asin: null,
        title: null,
        account_id,
        decided_at: at,
        updated_at: at,
      },
    ]);
  });

  it("a queued action's answer moves its status, receipt and message, and its updated_at only", () =>
    given(recorded)
      .when(settled({ index: 1, status: 'failed', receipt_id, error_message: 'BID_OUT_OF_RANGE', at: later }))
      .then('automation_actions', [
        { index: 0, status: 'applied', receipt_id, error_message: null, decided_at: at, updated_at: at },
        {
          index: 1,
          status: 'failed',
          receipt_id,
          error_message: 'BID_OUT_OF_RANGE',
          decided_at: at,
          updated_at: later,
        },
        { index: 2, status: null, receipt_id: null, error_message: null, decided_at: at, updated_at: at },
      ]));

  it('an answer without a receipt keeps the one the queued action had', () =>
    given(
      inStream(`automation_run-${run_id}`, [
        {
          ...recorded[0]!,
          data: { ...(recorded[0]!.data as object), actions: [{ ...actions[1]!, index: 0, receipt_id }] },
        },
      ]),
    )
      .when(settled({ index: 0, status: 'failed', receipt_id: null, error_message: 'refused', at: later }))
      .then('automation_actions', [{ index: 0, status: 'failed', receipt_id, error_message: 'refused' }]));

  it('applying the same events twice changes nothing', async () => {
    const db = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
    try {
      await assertApplyTwiceSameResult(
        db,
        automationRunsProjection,
        recordedEvents([
          ...recorded,
          ...settled({ index: 1, status: 'applied', receipt_id, error_message: null, at: later }),
        ]),
      );
    } finally {
      await db.destroy();
    }
  });
});
