import { expect } from 'chai';
import { pruneAutomationRuns } from '../../src/commands/automation-run/prune.js';
import {
  recordAutomationRun,
  settleAutomationAction,
  type RunRecordInput,
} from '../../src/commands/automation-run/record.js';
import { automationRunId } from '../../src/domain/automation-run/events.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { newId } from '../../src/domain/shared/ids.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { listAutomationActions } from '../../src/projections/automation-runs/queries.js';
import { useAutomationRecords } from '../support/automation-records.js';
import { quietReport } from '../support/automation-run.js';
import { assertRebuildEqualsLive } from '../support/projections.js';

// Recording live runs on the real event store and read model (spec 2.10, 3.3, 4.11.3, 8): once per
// run, one warning a day per automation even under racing runs, a queued action's answer, and
// retention.

describe('automation runs: recording, warnings, answers, retention', function () {
  this.timeout(60_000);
  const r = useAutomationRecords();
  const account_id = newId();
  const receipt_id = newId();
  const T0 = new Date('2026-10-01T10:00:00.000Z');
  const DAY = 24 * 60 * 60 * 1000;
  let automation_id: string;
  let events = 0;
  beforeEach(() => {
    automation_id = newId();
  });

  const input = (over: Partial<RunRecordInput> = {}): RunRecordInput => ({
    run: {
      automation_id,
      automation_version: 1,
      event_id: `evt-${++events}`,
      listing_id: null,
      account_id,
      stream_type: 'ANY_OFFER_CHANGED',
    },
    at: T0,
    ...quietReport(),
    ...over,
  });
  const applied = {
    status: 'applied' as const,
    receipt_id,
    value: 15.27,
    action: 'update',
    target: { type: 'Listing', id: 'l-1' },
  };
  /** a run that changed nothing and read a missing top-level key */
  const mismatched = (at: Date) => input({ at, missing_fields: ['Payload'] });
  const actionsOf = async () => {
    await r.caughtUp();
    return (await listAutomationActions(r.db, { accountIds: [account_id], automation_id, limit: 100 })).rows;
  };

  it('records a run once: the same run again records nothing and keeps the first answer', async () => {
    const first = input({ mutations: [applied] });
    const one = await recordAutomationRun(r.ctx, first);
    expect(one).to.include({ run_id: automationRunId(first.run), recorded: true });
    expect(one.actions).to.have.length(1);
    const again = await recordAutomationRun(r.ctx, {
      ...first,
      mutations: [applied, applied],
      at: new Date(T0.getTime() + 1000),
    });
    expect(again).to.deep.equal({ run_id: one.run_id, recorded: false, actions: [] });
    const stream = await r.store.readStream(`automation_run-${one.run_id}`);
    expect(stream.map((e) => e.type)).to.deep.equal(['AutomationRunRecorded']);
    expect(stream[0]!.metadata).to.include({ account_id });
    expect(stream[0]!.metadata.actor).to.deep.equal({ kind: 'automation', id: 'runner-test' });
    expect((await actionsOf()).map((a) => [a.kind, a.status, a.value, a.receipt_id])).to.deep.equal([
      ['mutation', 'applied', 15.27, receipt_id],
    ]);
  });

  it('at most one warning a day per automation, even when runs race for it; the next day warns again', async () => {
    const racing = await Promise.all(
      Array.from({ length: 5 }, (_, i) => recordAutomationRun(r.ctx, mismatched(new Date(T0.getTime() + i)))),
    );
    expect(racing.filter((x) => x.actions.length === 1)).to.have.length(1);
    expect(racing.every((x) => x.recorded)).to.equal(true);
    const nextDay = await recordAutomationRun(r.ctx, mismatched(new Date(T0.getTime() + DAY)));
    expect(nextDay.actions.map((a) => [a.kind, a.missing_fields])).to.deep.equal([['warning', ['Payload']]]);
    const warnings = (await actionsOf()).filter((a) => a.kind === 'warning');
    expect(warnings.map((w) => w.decided_at.slice(0, 10))).to.deep.equal(['2026-10-02', '2026-10-01']);
    // another automation has its own day
    automation_id = newId();
    expect((await recordAutomationRun(r.ctx, mismatched(T0))).actions).to.have.length(1);
  });

  it("a rerun of a recorded run on a later day does not take that day's warning from its runs", async () => {
    const first = mismatched(T0);
    await recordAutomationRun(r.ctx, first);
    expect((await recordAutomationRun(r.ctx, { ...first, at: new Date(T0.getTime() + DAY) })).recorded).to.equal(false);
    expect((await recordAutomationRun(r.ctx, mismatched(new Date(T0.getTime() + DAY)))).actions).to.have.length(1);
  });

  it("a queued action's answer (spec 3.3): applied or failed once; anything else is invalid", async () => {
    const queued = { status: 'queued' as const, value: 1.5, action: 'update', target: { type: 'Campaign', id: 'c-1' } };
    const { run_id } = await recordAutomationRun(r.ctx, input({ mutations: [queued, queued] }));
    const at = new Date(T0.getTime() + 60_000);
    expect(await settleAutomationAction(r.ctx, { run_id, index: 0, status: 'queued', at })).to.equal(false);
    expect(await settleAutomationAction(r.ctx, { run_id, index: 0, status: 'applied', receipt_id, at })).to.equal(true);
    expect(
      await settleAutomationAction(r.ctx, {
        run_id,
        index: 1,
        status: 'failed',
        error_message: 'BID_OUT_OF_RANGE',
        at,
      }),
    ).to.equal(true);
    const err = await settleAutomationAction(r.ctx, {
      run_id,
      index: 0,
      status: 'failed',
      error_message: 'x',
      at,
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(DomainError);
    expect((err as DomainError).detail).to.match(/only a queued mutation action is settled; this one is applied/);
    const rows = await actionsOf();
    expect(rows.map((a) => [a.status, a.receipt_id, a.error_message])).to.have.deep.members([
      ['applied', receipt_id, null],
      ['failed', null, 'BID_OUT_OF_RANGE'],
    ]);
    expect(rows.every((a) => a.updated_at === at.toISOString() && a.decided_at === T0.toISOString())).to.equal(true);
  });

  it('retention: runs with actions go a year after the decision, runs without a month after; rebuilding gives the live tables', async () => {
    const withAction = await recordAutomationRun(r.ctx, input({ mutations: [applied] }));
    const warned = await recordAutomationRun(r.ctx, mismatched(T0));
    const plain = await recordAutomationRun(r.ctx, input());
    await r.caughtUp();
    const slot = `automation_warning-${automation_id}.2026-10-01`;
    expect(await r.store.readStream(slot)).to.have.length(1);

    await pruneAutomationRuns(r.db, r.store, new Date('2026-11-02T10:00:00.000Z'));
    expect(
      await r.store.readStream(`automation_run-${plain.run_id}`),
      'a run without actions, after a month',
    ).to.deep.equal([]);
    expect(await r.store.readStream(`automation_run-${withAction.run_id}`)).to.have.length(1);
    expect(await actionsOf()).to.have.length(2);

    await pruneAutomationRuns(r.db, r.store, new Date('2027-10-01T09:59:59.000Z'));
    expect(await actionsOf(), 'a day short of a year').to.have.length(2);
    await assertRebuildEqualsLive(r.db, r.store, automationRunsProjection);

    expect(await pruneAutomationRuns(r.db, r.store, new Date('2027-10-01T10:00:01.000Z'), 1)).to.be.at.least(2);
    for (const gone of [withAction, warned])
      expect(await r.store.readStream(`automation_run-${gone.run_id}`)).to.deep.equal([]);
    expect(await r.store.readStream(slot), "the warning's slot goes with it").to.deep.equal([]);
    expect(await actionsOf()).to.deep.equal([]);
  });
});
