import {
  automationActionId,
  NO_ACTION_FIELDS,
  type AutomationAction,
  type AutomationRunEvent,
} from '../../src/domain/automation-run/events.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import {
  account_id,
  appliedListingAction,
  at,
  automation_id,
  receipt_id,
  recordedRun,
  run,
  run_id,
} from '../support/automation-run.js';
import { randomUUID } from 'node:crypto';
import { createDb } from '../../src/infra/db.js';
import {
  assertBatchEqualsOneByOne,
  assertStreamEventsApplyTwice,
  inStream,
  projectionSpec,
  recordedEvents,
} from '../support/projections.js';

// The automation runs read model, event by event (spec 2.10, 3.3): a row per run, a row per
// action, and a queued action's answer.

const later = '2026-11-25T10:05:00.000Z';
const actions: AutomationAction[] = [
  appliedListingAction,

  {
    ...NO_ACTION_FIELDS,
    index: 1,
    kind: 'mutation',
    status: 'queued',
    value: 1.5,
    target_type: 'Campaign',
    target_id: 'c-1',
  },
  { ...NO_ACTION_FIELDS, index: 2, kind: 'warning', status: null, missing_fields: ['payload'] },
];
const stream = `automation_run-${run_id}`;
const recorded = (list = actions) => inStream(stream, [recordedRun(list, { missing_fields: ['payload'] })]);
const settled = (data: Extract<AutomationRunEvent, { type: 'AutomationActionSettled' }>['data']) =>
  inStream(stream, [{ type: 'AutomationActionSettled', data }]);
/** an action row as expected: its index, kind, status, value, receipt and asin */
const row = (
  index: number,
  kind: string,
  status: string | null,
  value: number | null,
  receipt: string | null,
  asin: string | null,
) => ({
  id: automationActionId(run_id, index),
  kind,
  status,
  value,
  receipt_id: receipt,
  asin,
  account_id,
  automation_id,
  decided_at: at,
  updated_at: at,
});

const given = projectionSpec(automationRunsProjection);

describe('automation runs projection', () => {
  it('a recorded run is one run row and one row per action, decided at the run', async () => {
    const when = given([]).when(recorded());
    await when.then('automation_runs', [
      { run_id, ...run, actions: 3, warned: true, missing_fields: ['payload'], error_message: null, at },
    ]);
    await when.then('automation_actions', [
      row(0, 'mutation', 'applied', 15.27, receipt_id, 'B0TEST0001'),
      row(1, 'mutation', 'queued', 1.5, null, null),
      row(2, 'warning', null, null, null, null),
    ]);
  });

  it("a queued action's answer moves its status, receipt and message, and its updated_at only", () =>
    given(recorded())
      .when(settled({ index: 1, status: 'failed', receipt_id, error_message: 'BID_OUT_OF_RANGE', at: later }))
      .then('automation_actions', [
        { index: 0, status: 'applied', receipt_id, error_message: null, updated_at: at },
        { index: 1, status: 'failed', receipt_id, error_message: 'BID_OUT_OF_RANGE', updated_at: later },
        { index: 2, status: null, receipt_id: null, error_message: null, updated_at: at },
      ]));

  it('an answer without a receipt keeps the one the queued action had', () =>
    given(recorded([{ ...actions[1]!, index: 0, receipt_id }]))
      .when(settled({ index: 0, status: 'failed', receipt_id: null, error_message: 'refused', at: later }))
      .then('automation_actions', [{ index: 0, status: 'failed', receipt_id, error_message: 'refused' }]));

  it('a batch leaves the rows one event at a time leaves: runs interleaved, an action answered twice', async () => {
    const [a, b] = [`automation_run-${randomUUID()}`, `automation_run-${randomUUID()}`];
    const answer = (stream: string, data: Parameters<typeof settled>[0]) =>
      inStream(stream, [{ type: 'AutomationActionSettled', data }]);
    const events = recordedEvents([
      ...inStream(a, [recordedRun(actions)]),
      ...inStream(b, [recordedRun([actions[1]!, { ...actions[1]!, index: 3, receipt_id }])]),
      ...answer(a, { index: 1, status: 'applied', receipt_id, error_message: null, at: later }),
      // answered twice: the second names no receipt, so the first's stays, and its status wins
      ...answer(b, { index: 1, status: 'applied', receipt_id, error_message: null, at: later }),
      ...answer(b, { index: 1, status: 'failed', receipt_id: null, error_message: 'refused', at: later }),
      ...answer(b, { index: 3, status: 'failed', receipt_id: null, error_message: 'refused', at: later }),
    ]);
    const db = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
    try {
      await assertBatchEqualsOneByOne(db, automationRunsProjection, events);
      await assertBatchEqualsOneByOne(db, automationRunsProjection, events, { given: 3 });
    } finally {
      await db.destroy();
    }
  });

  it('applying the same events twice changes nothing', () =>
    assertStreamEventsApplyTwice(automationRunsProjection, [
      ...recorded(),
      ...settled({ index: 1, status: 'applied', receipt_id, error_message: null, at: later }),
    ]));
});
