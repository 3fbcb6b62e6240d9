import { expect } from 'chai';
import type { Knex } from 'knex';
import { executeMutationCommand } from '../../src/commands/mutation/execute.js';
import type { MutationCommand } from '../../src/domain/mutation/decide.js';
import { awaitingCheck, type MutationEvent, type Reconciliation } from '../../src/domain/mutation/events.js';
import type { Action, TargetType } from '../../src/domain/mutation/payloads.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { newId } from '../../src/domain/shared/ids.js';
import type { EventStore, Position } from '../../src/eventstore/index.js';
import {
  mutationsProjection,
  RECEIPT_EVENTS_TABLE,
  RECEIPTS_TABLE,
} from '../../src/projections/mutations/projection.js';
import {
  getReceipt,
  listReceipts,
  receiptsForTargets,
  type ReceiptSummary,
} from '../../src/projections/mutations/queries.js';
import { Projector } from '../../src/projections/projector.js';
import {
  assertApplyTwiceSameResult,
  assertBatchEqualsOneByOne,
  assertRebuildEqualsLive,
  inStream,
  projectionSpec,
  startProjecting,
} from '../support/projections.js';

// The receipts' rows, given a receipt's events: each transition of spec 3.4 and the columns it
// sets, applied by the real projection into a scratch schema.

describe('mutation receipts read model: given events, then rows', function () {
  const given = projectionSpec(mutationsProjection);
  const id = '7e57a000-0000-4000-8000-00000000b001';
  const account_id = '7e57a000-0000-4000-8000-000000000002';
  const campaign = { type: 'Campaign' as const, id: '7e57a000-0000-4000-8000-0000000000c2' };
  const t0 = '2026-11-20T10:00:00.000Z';
  const t1 = '2026-11-20T10:00:01.000Z';
  const t2 = '2026-11-20T10:00:02.000Z';
  const at = (minutes: number) => new Date(Date.parse(t2) + minutes * 60_000).toISOString();
  const receipt = (...events: MutationEvent[]) => inStream(`mutation-${id}`, events);

  const admittedData = {
    receipt_id: id,
    account_id,
    target: campaign,
    provider: { profileId: '3001', campaignId: '111' },
    action: 'update' as const,
    payload: { state: 'PAUSED' },
    idempotency: null,
    created_at: t0,
    blocked: null,
  };
  const admitted: MutationEvent = { type: 'MutationAdmitted', data: admittedData };
  const creation: MutationEvent = {
    type: 'MutationAdmitted',
    data: { ...admittedData, action: 'create_ad_group', payload: { name: 'Exact', state: 'ENABLED', defaultBid: 0.5 } },
  };
  const started: MutationEvent = {
    type: 'MutationDispatchStarted',
    data: { receipt_id: id, attempt: 1, started_at: t1 },
  };
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
    request_id: 'req-lost',
    error: { code: 'timeout', message: 'no reply' },
    recorded_at: t2,
  };
  const uncertain: MutationEvent = {
    type: 'MutationUncertain',
    data: { receipt_id: id, attempt: 1, ...lost, cause: 'reply_lost' },
  };
  const adGroup = { type: 'AdGroup' as const, id: '7e57a000-0000-4000-8000-0000000000d1', providerId: '222' };
  const settled = (result: Reconciliation['result'], cause: string): Reconciliation => ({
    result,
    attempts: 1,
    checkedAt: at(10),
    nextAt: null,
    candidates: result === 'accepted' ? [adGroup] : [],
    cause,
  });

  it('an admission is a queued row with its target, payload and provider ids', () =>
    given([])
      .when(receipt(admitted))
      .then(RECEIPTS_TABLE, [
        {
          id,
          account_id,
          target_type: 'Campaign',
          target_id: campaign.id,
          action: 'update',
          status: 'queued',
          outcome: null,
          accepted: null,
          error: null,
          recorded_at: null,
          payload: { state: 'PAUSED' },
          provider: { profileId: '3001', campaignId: '111' },
          reconciliation: null,
          attempts: 0,
          target_deleted_at: null,
          created_at: t0,
          revision: '0',
        },
      ]));

  it('an idempotent admission keeps its key, namespace and fingerprint', () => {
    const idempotency = { namespace: 'user-1', key: 'k-1', fingerprint: 'f', expires_at: at(1440) };
    return given([])
      .when(receipt({ type: 'MutationAdmitted', data: { ...admittedData, idempotency } }))
      .then(RECEIPTS_TABLE, [
        { id, idempotency, idempotency_namespace: 'user-1', idempotency_key: 'k-1', status: 'queued' },
      ]);
  });

  it("an automation run's admission keeps the run that caused it", () => {
    const caused_by = {
      automation_id: newId(),
      automation_version: 3,
      event_id: newId(),
      run_id: newId(),
      listing_id: newId(),
    };
    return given([])
      .when(receipt({ type: 'MutationAdmitted', data: { ...admittedData, caused_by } }))
      .then(RECEIPTS_TABLE, [{ id, caused_by, status: 'queued' }]);
  });

  it('an admission without a key has no idempotency columns', () =>
    given([])
      .when(receipt(admitted))
      .then(RECEIPTS_TABLE, [{ id, idempotency: null, idempotency_namespace: null, idempotency_key: null }]));

  it('an admission already blocked is a blocked row with the reason as its error', () =>
    given([])
      .when(
        receipt({
          type: 'MutationAdmitted',
          data: {
            ...admittedData,
            blocked: { reason: 'automation_switch_off', message: 'the campaign has its Automation switch off' },
          },
        }),
      )
      .then(RECEIPTS_TABLE, [
        {
          id,
          status: 'blocked',
          outcome: 'blocked',
          accepted: false,
          error: {
            code: 'blocked',
            reason: 'automation_switch_off',
            message: 'the campaign has its Automation switch off',
          },
          recorded_at: t0,
          attempts: 0,
        },
      ]));

  it('a dispatch started makes it submitting and counts the attempt', () =>
    given(receipt(admitted))
      .when(receipt(started))
      .then(RECEIPTS_TABLE, [{ id, status: 'submitting', outcome: null, accepted: null, attempts: 1, revision: '1' }]));

  it('an accepted submission records the provider answer', () =>
    given(receipt(admitted, started))
      .when(
        receipt({
          type: 'MutationSubmitted',
          data: { receipt_id: id, attempt: 1, ...answer, submission_id: 'sub-1', accepted: true, created: null },
        }),
      )
      .then(RECEIPTS_TABLE, [
        {
          id,
          status: 'submitted',
          outcome: 'accepted',
          accepted: true,
          http_status: 207,
          response: answer.response,
          request_id: 'req-1',
          error: null,
          submission_id: 'sub-1',
          created: null,
          recorded_at: t2,
          reconciliation: null,
          attempts: 1,
          revision: '2',
        },
      ]));

  it('an accepted creation records what it created', () =>
    given(receipt(creation, started))
      .when(
        receipt({
          type: 'MutationSubmitted',
          data: { receipt_id: id, attempt: 1, ...answer, submission_id: null, accepted: true, created: adGroup },
        }),
      )
      .then(RECEIPTS_TABLE, [
        { id, action: 'create_ad_group', status: 'submitted', outcome: 'accepted', created: adGroup },
      ]));

  it('a rejected submission records the provider error', () => {
    const error = { code: 'NAME_NOT_UNIQUE', message: 'a campaign with this name exists' };
    return given(receipt(admitted, started))
      .when(
        receipt({
          type: 'MutationSubmitted',
          data: { receipt_id: id, attempt: 1, ...answer, error, submission_id: null, accepted: false, created: null },
        }),
      )
      .then(RECEIPTS_TABLE, [
        { id, status: 'submitted', outcome: 'rejected', accepted: false, http_status: 207, error, created: null },
      ]);
  });

  it('a retryable rejection queues it again with the answer that refused it', () =>
    given(receipt(admitted, started))
      .when(
        receipt({
          type: 'MutationRetryScheduled',
          data: {
            receipt_id: id,
            attempt: 1,
            http_status: 429,
            response: { code: 'THROTTLED' },
            request_id: 'req-429',
            error: { code: 'THROTTLED', message: 'slow down' },
            recorded_at: t2,
          },
        }),
      )
      .then(RECEIPTS_TABLE, [
        {
          id,
          status: 'queued',
          outcome: 'retryable',
          accepted: null,
          http_status: 429,
          response: { code: 'THROTTLED' },
          request_id: 'req-429',
          error: { code: 'THROTTLED', message: 'slow down' },
          recorded_at: t2,
          attempts: 1,
        },
      ]));

  it('an uncertain submission awaits its first check', () =>
    given(receipt(admitted, started))
      .when(receipt(uncertain))
      .then(RECEIPTS_TABLE, [
        {
          id,
          status: 'uncertain',
          outcome: 'uncertain',
          accepted: null,
          http_status: null,
          response: null,
          request_id: 'req-lost',
          error: { code: 'timeout', message: 'no reply' },
          recorded_at: t2,
          reconciliation: awaitingCheck({ cause: 'reply_lost', recorded_at: t2 }),
        },
      ]));

  it('a check that found nothing yet keeps it uncertain with the check recorded', () => {
    const pending: Reconciliation = {
      result: 'pending',
      attempts: 1,
      checkedAt: at(1),
      nextAt: at(2),
      candidates: [],
      cause: 'nothing matching appeared yet',
    };
    return given(receipt(creation, started, uncertain))
      .when(receipt({ type: 'MutationReconciliationChecked', data: { receipt_id: id, reconciliation: pending } }))
      .then(RECEIPTS_TABLE, [
        { id, status: 'uncertain', outcome: 'uncertain', accepted: null, recorded_at: t2, reconciliation: pending },
      ]);
  });

  it('a confirmed creation is submitted and accepted, with what was created', () => {
    const reconciliation = settled('accepted', 'exactly one matching entity appeared after the attempt');
    return given(receipt(creation, started, uncertain))
      .when(receipt({ type: 'MutationCreationConfirmed', data: { receipt_id: id, created: adGroup, reconciliation } }))
      .then(RECEIPTS_TABLE, [
        {
          id,
          status: 'submitted',
          outcome: 'accepted',
          accepted: true,
          created: adGroup,
          reconciliation,
          recorded_at: at(10),
        },
      ]);
  });

  it('a confirmed change is submitted and accepted', () => {
    const reconciliation = settled('accepted', 'the target read back shows every requested value');
    return given(receipt(admitted, started, uncertain))
      .when(
        receipt({
          type: 'MutationChangeConfirmed',
          data: { receipt_id: id, reconciliation, observed: { state: 'PAUSED' } },
        }),
      )
      .then(RECEIPTS_TABLE, [
        {
          id,
          status: 'submitted',
          outcome: 'accepted',
          accepted: true,
          created: null,
          reconciliation,
          recorded_at: at(10),
        },
      ]);
  });

  it('an absent creation or change is submitted, absent and not accepted', async () => {
    const reconciliation = settled('absent', 'nothing matching appeared within 10 minutes');
    const absent = { id, status: 'submitted', outcome: 'absent', accepted: false, reconciliation, recorded_at: at(10) };
    await given(receipt(creation, started, uncertain))
      .when(receipt({ type: 'MutationCreationAbsent', data: { receipt_id: id, reconciliation } }))
      .then(RECEIPTS_TABLE, [absent]);
    await given(receipt(admitted, started, uncertain))
      .when(receipt({ type: 'MutationChangeAbsent', data: { receipt_id: id, reconciliation, observed: null } }))
      .then(RECEIPTS_TABLE, [absent]);
  });

  it('an unresolved creation is unresolved, with its candidates', () => {
    const reconciliation: Reconciliation = {
      ...settled('unresolved', '2 entities appeared after the attempt that could each be this creation'),
      candidates: [adGroup, { ...adGroup, id: '7e57a000-0000-4000-8000-0000000000d2', providerId: '223' }],
    };
    return given(receipt(creation, started, uncertain))
      .when(receipt({ type: 'MutationUnresolved', data: { receipt_id: id, reconciliation } }))
      .then(RECEIPTS_TABLE, [
        { id, status: 'unresolved', outcome: 'unresolved', accepted: null, reconciliation, recorded_at: at(10) },
      ]);
  });

  it('a receipt blocked before dispatch is blocked with the reason as its error', () =>
    given(receipt(admitted))
      .when(
        receipt({
          type: 'MutationBlocked',
          data: {
            receipt_id: id,
            reason: 'target_deleted',
            message: 'the marketplace deleted the target before this request was sent',
            recorded_at: t1,
          },
        }),
      )
      .then(RECEIPTS_TABLE, [
        {
          id,
          status: 'blocked',
          outcome: 'blocked',
          accepted: false,
          error: {
            code: 'blocked',
            reason: 'target_deleted',
            message: 'the marketplace deleted the target before this request was sent',
          },
          recorded_at: t1,
          attempts: 0,
        },
      ]));

  it('a target deleted during a submission leaves it submitting, the deletion time recorded', () =>
    given(receipt(admitted, started))
      .when(receipt({ type: 'MutationTargetDeleted', data: { receipt_id: id, recorded_at: t2 } }))
      .then(RECEIPTS_TABLE, [
        { id, status: 'submitting', outcome: null, accepted: null, target_deleted_at: t2, recorded_at: null },
      ]));

  it('every event is in the history, by revision, stamped with the time it was recorded', () =>
    given(receipt(admitted, started))
      .when(receipt(uncertain))
      .then(RECEIPT_EVENTS_TABLE, (rows) => {
        expect(rows.map((r) => [r.receipt_id, r.revision, r.type])).to.deep.equal([
          [id, '0', 'MutationAdmitted'],
          [id, '1', 'MutationDispatchStarted'],
          [id, '2', 'MutationUncertain'],
        ]);
        expect(rows.map((r) => r.data)).to.deep.equal([admitted.data, started.data, uncertain.data]);
        // recordedEvents stamps the events a second apart from 2026-01-01
        expect(rows.map((r) => r.recorded_at)).to.deep.equal([
          '2026-01-01T00:00:00.000Z',
          '2026-01-01T00:00:01.000Z',
          '2026-01-01T00:00:02.000Z',
        ]);
      }));

  it("another receipt's events leave this receipt's row alone", () => {
    const other = '7e57a000-0000-4000-8000-00000000b002';
    return given(receipt(admitted))
      .when(
        inStream(`mutation-${other}`, [
          { type: 'MutationAdmitted', data: { ...admittedData, receipt_id: other } },
          { type: 'MutationDispatchStarted', data: { ...started.data, receipt_id: other } },
        ]),
      )
      .then(RECEIPTS_TABLE, [
        { id, status: 'queued', revision: '0' },
        { id: other, status: 'submitting', revision: '1' },
      ]);
  });
});

// Receipts driven through the command handler into the real event store, projected by the
// real projector; the queries are checked against what the commands recorded.

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
/** the local id (a uuid, as every local id) of the ad group the reconciled creation made */
const CREATED_GROUP = newId();
const iso = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

describe('mutation receipts: command handler and read model', function () {
  this.timeout(60000);
  let db: Knex;
  let store: EventStore;
  let projector: Projector;
  let world: Awaited<ReturnType<typeof startProjecting>>;
  const ctx = () => ({ store, metadata: { actor: { kind: 'worker' as const, id: 'test' } } });
  const account = newId();
  const otherAccount = newId();
  const campaignA = newId();
  const campaignB = newId();
  let clock = 0;
  let last: Position | null = null;

  const run = async (command: MutationCommand) => {
    const result = await executeMutationCommand(ctx(), command);
    last = result.position ?? last;
    return result;
  };
  const admit = async (
    o: {
      target?: { type: TargetType; id: string };
      action?: Action;
      payload?: Record<string, unknown>;
      account?: string;
      key?: string;
      namespace?: string;
      blocked?: boolean;
    } = {},
  ) => {
    const receipt_id = newId();
    const created_at = iso(clock++);
    await run({
      type: 'AdmitMutation',
      receipt_id,
      account_id: o.account ?? account,
      target: o.target ?? { type: 'Campaign', id: campaignA },
      provider: { profileId: '3001', campaignId: '111' },
      action: o.action ?? 'update',
      payload: o.payload ?? { state: 'PAUSED' },
      idempotency: o.key
        ? { namespace: o.namespace ?? 'user-1', key: o.key, fingerprint: 'f', expires_at: iso(86400) }
        : null,
      created_at,
      blocked: o.blocked
        ? { reason: 'automation_switch_off', message: 'the campaign has its Automation switch off' }
        : null,
    });
    return receipt_id;
  };
  const answer = (status: number) => ({
    http_status: status,
    response: { campaigns: { success: [{ index: 0, campaignId: '111' }], error: [] } },
    request_id: `req-${status}`,
    error: null,
    recorded_at: iso(clock++),
  });
  const start = (receipt_id: string) => run({ type: 'StartDispatch', receipt_id, started_at: iso(clock++) });
  const createGroup = {
    action: 'create_ad_group' as const,
    payload: { name: 'Exact', state: 'ENABLED', defaultBid: 0.5 },
  };
  const lost = () => ({
    http_status: null,
    response: null,
    request_id: 'req-lost',
    error: { code: 'timeout', message: 'no reply' },
    recorded_at: iso(clock++),
  });

  const ids: Record<string, string> = {};

  before(async () => {
    world = await startProjecting([mutationsProjection]);
    ({ db, store, projector } = world);

    ids.accepted = await admit();
    await start(ids.accepted);
    await run({
      type: 'RecordSubmission',
      receipt_id: ids.accepted,
      ...answer(207),
      submission_id: null,
      accepted: true,
      created: null,
    });

    ids.queued = await admit({ key: 'k-1' });
    ids.blocked = await admit({ blocked: true });
    ids.submitting = await admit({ target: { type: 'Campaign', id: campaignB } });
    await start(ids.submitting);
    await run({ type: 'RecordTargetDeleted', receipt_id: ids.submitting, recorded_at: iso(clock++) });

    ids.retryable = await admit();
    await start(ids.retryable);
    await run({
      type: 'RecordRetryableRejection',
      receipt_id: ids.retryable,
      http_status: 429,
      response: { code: 'THROTTLED' },
      request_id: 'req-429',
      error: { code: 'THROTTLED', message: 'slow down' },
      recorded_at: iso(clock++),
    });

    ids.confirmed = await admit(createGroup);
    await start(ids.confirmed);
    const uncertainAt = clock;
    await run({ type: 'RecordUncertain', receipt_id: ids.confirmed, ...lost(), cause: 'reply_lost' });
    await run({
      type: 'ReconcileCreation',
      receipt_id: ids.confirmed,
      checks: 0,
      candidates: [],
      checked_at: iso(uncertainAt + 60),
      next_at: iso(uncertainAt + 120),
    });
    await run({
      type: 'ReconcileCreation',
      receipt_id: ids.confirmed,
      checks: 1,
      candidates: [{ type: 'AdGroup', id: CREATED_GROUP, providerId: '222' }],
      checked_at: iso(uncertainAt + 120),
    });

    ids.absent = await admit(createGroup);
    await start(ids.absent);
    const absentSince = clock;
    await run({ type: 'RecordUncertain', receipt_id: ids.absent, ...lost(), cause: 'ambiguous' });
    await run({
      type: 'ReconcileCreation',
      receipt_id: ids.absent,
      checks: 0,
      candidates: [],
      checked_at: iso(absentSince + 600),
    });

    ids.unresolved = await admit(createGroup);
    await start(ids.unresolved);
    await run({ type: 'RecordUncertain', receipt_id: ids.unresolved, ...lost(), cause: 'partial' });
    await run({
      type: 'ReconcileCreation',
      receipt_id: ids.unresolved,
      checks: 0,
      candidates: [
        { type: 'AdGroup', id: newId(), providerId: '223' },
        { type: 'AdGroup', id: newId(), providerId: '224' },
      ],
      checked_at: iso(clock++),
    });

    ids.uncertain = await admit();
    await start(ids.uncertain);
    await run({ type: 'RecordUncertain', receipt_id: ids.uncertain, ...lost(), cause: 'reply_lost' });

    ids.verified = await admit();
    await start(ids.verified);
    const verifiedSince = clock;
    await run({ type: 'RecordUncertain', receipt_id: ids.verified, ...lost(), cause: 'reply_lost' });
    await run({
      type: 'ReconcileChange',
      receipt_id: ids.verified,
      checks: 0,
      shows: false,
      unchanged: true,
      observed: { state: 'ENABLED' },
      checked_at: iso(verifiedSince + 60),
      next_at: iso(verifiedSince + 120),
    });
    await run({
      type: 'ReconcileChange',
      receipt_id: ids.verified,
      checks: 1,
      shows: true,
      unchanged: false,
      observed: { state: 'PAUSED' },
      checked_at: iso(verifiedSince + 120),
    });

    ids.changeAbsent = await admit();
    await start(ids.changeAbsent);
    const changeSince = clock;
    await run({ type: 'RecordUncertain', receipt_id: ids.changeAbsent, ...lost(), cause: 'reply_lost' });
    await run({
      type: 'ReconcileChange',
      receipt_id: ids.changeAbsent,
      checks: 0,
      shows: false,
      unchanged: true,
      observed: null,
      checked_at: iso(changeSince + 600),
    });

    ids.rejected = await admit();
    await start(ids.rejected);
    await run({
      type: 'RecordSubmission',
      receipt_id: ids.rejected,
      ...answer(207),
      error: { code: 'NAME_NOT_UNIQUE', message: 'a campaign with this name exists' },
      submission_id: null,
      accepted: false,
      created: null,
    });

    ids.foreign = await admit({
      account: otherAccount,
      target: { type: 'Campaign', id: newId() },
      key: 'k-1',
      namespace: 'user-2',
    });
    await projector.whenCaughtUp(last);
  });

  after(async () => world?.close());

  const read = async (id: string) => (await getReceipt(db, [account], id))!;

  it('each receipt shows the status, outcome and acceptance its events recorded', async () => {
    const expected: Record<string, [string, string | null, boolean | null]> = {
      accepted: ['submitted', 'accepted', true],
      queued: ['queued', null, null],
      blocked: ['blocked', 'blocked', false],
      submitting: ['submitting', null, null],
      retryable: ['queued', 'retryable', null],
      confirmed: ['submitted', 'accepted', true],
      absent: ['submitted', 'absent', false],
      unresolved: ['unresolved', 'unresolved', null],
      uncertain: ['uncertain', 'uncertain', null],
      verified: ['submitted', 'accepted', true],
      changeAbsent: ['submitted', 'absent', false],
      rejected: ['submitted', 'rejected', false],
    };
    for (const [name, [status, outcome, accepted]] of Object.entries(expected)) {
      const { receipt } = await read(ids[name]!);
      expect({ status: receipt.status, outcome: receipt.outcome, accepted: receipt.accepted }, name).to.deep.equal({
        status,
        outcome,
        accepted,
      });
    }
  });

  it('a receipt carries its payload, the provider answer and the whole event history', async () => {
    const { receipt, history } = await read(ids.accepted!);
    expect(receipt).to.include({
      http_status: 207,
      request_id: 'req-207',
      target_type: 'Campaign',
      target_id: campaignA,
      action: 'update',
      attempts: 1,
      account_id: account,
    });
    expect(receipt.payload).to.deep.equal({ state: 'PAUSED' });
    expect(receipt.response).to.deep.equal({ campaigns: { success: [{ index: 0, campaignId: '111' }], error: [] } });
    expect(receipt.reconciliation, 'never in doubt').to.deep.equal({});
    expect(receipt.created).to.equal(null);
    expect(history.map((h) => h.type)).to.deep.equal([
      'MutationAdmitted',
      'MutationDispatchStarted',
      'MutationSubmitted',
    ]);
    expect(history.map((h) => h.revision)).to.deep.equal([0, 1, 2]);
    const events = await store.readStream(`mutation-${ids.accepted}`);
    expect(history.map((h) => h.data)).to.deep.equal(events.map((e) => e.data));
  });

  it('a submission under way when the target was deleted stays submitting, the deletion in its history', async () => {
    const { receipt, history } = await read(ids.submitting!);
    expect(receipt.status).to.equal('submitting');
    expect(history.map((h) => h.type)).to.deep.equal([
      'MutationAdmitted',
      'MutationDispatchStarted',
      'MutationTargetDeleted',
    ]);
  });

  it('a reconciled creation shows created and the reconciliation object', async () => {
    const { receipt } = await read(ids.confirmed!);
    expect(receipt.created).to.deep.equal({ type: 'AdGroup', id: CREATED_GROUP, providerId: '222' });
    expect(receipt.reconciliation).to.deep.include({ result: 'accepted', attempts: 2, nextAt: null });
    const unresolved = (await read(ids.unresolved!)).receipt;
    expect((unresolved.reconciliation as { candidates: unknown[] }).candidates).to.have.length(2);
    expect((await read(ids.absent!)).receipt.reconciliation).to.deep.include({ result: 'absent', attempts: 1 });
  });

  it('a verified change shows the reconciliation object; what each check saw is in its history', async () => {
    const { receipt, history } = await read(ids.verified!);
    expect(receipt).to.deep.include({
      created: null,
      reconciliation: {
        result: 'accepted',
        attempts: 2,
        checkedAt: receipt.recorded_at,
        nextAt: null,
        candidates: [],
        cause: 'the target read back shows every requested value',
      },
    });
    expect(history.slice(-2).map((h) => [h.type, h.data.observed])).to.deep.equal([
      ['MutationReconciliationChecked', { state: 'ENABLED' }],
      ['MutationChangeConfirmed', { state: 'PAUSED' }],
    ]);
    expect((await read(ids.changeAbsent!)).receipt.reconciliation).to.deep.include({
      result: 'absent',
      attempts: 1,
      nextAt: null,
    });
  });

  it('a rejected or blocked receipt carries its error; an idempotent admission its key', async () => {
    expect((await read(ids.rejected!)).receipt.error).to.deep.equal({
      code: 'NAME_NOT_UNIQUE',
      message: 'a campaign with this name exists',
    });
    expect((await read(ids.blocked!)).receipt.error).to.deep.equal({
      code: 'blocked',
      reason: 'automation_switch_off',
      message: 'the campaign has its Automation switch off',
    });
    expect((await read(ids.queued!)).receipt.idempotency).to.deep.equal({ key: 'k-1', expires_at: iso(86400) });
    expect((await read(ids.accepted!)).receipt).not.to.have.property('idempotency');
  });

  it("another account's receipt, an unknown id or a malformed id read as missing", async () => {
    expect(await getReceipt(db, [account], ids.foreign!)).to.equal(null);
    expect(await getReceipt(db, [account], newId())).to.equal(null);
    expect(await getReceipt(db, [account], 'not-a-uuid')).to.equal(null);
    expect(await getReceipt(db, [otherAccount], ids.foreign!)).not.to.equal(null);
  });

  it('lists newest first and pages with a keyset cursor through every receipt exactly once', async () => {
    const all = (await listReceipts(db, { accountIds: [account], limit: 100 })).mutations;
    expect(all.map((r) => r.id)).to.have.members(
      Object.entries(ids)
        .filter(([k]) => k !== 'foreign')
        .map(([, v]) => v),
    );
    const createdAts = all.map((r) => r.created_at);
    expect(createdAts).to.deep.equal([...createdAts].sort().reverse());
    expect(all[0]).not.to.have.property('payload');
    expect(all[0]).not.to.have.property('response');
    const paged: ReceiptSummary[] = [];
    let cursor: string | undefined;
    do {
      const page = await listReceipts(db, { accountIds: [account], limit: 3, cursor });
      expect(page.mutations.length).to.be.at.most(3);
      paged.push(...page.mutations);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(paged.map((r) => r.id)).to.deep.equal(all.map((r) => r.id));
  });

  it('filters by status, pending, target, action and idempotency key in the caller namespace', async () => {
    const idsOf = async (f: Partial<Parameters<typeof listReceipts>[1]>) =>
      (await listReceipts(db, { accountIds: [account], limit: 100, ...f })).mutations.map((r) => r.id).sort();
    expect(await idsOf({ status: 'pending' })).to.deep.equal(
      [ids.queued, ids.submitting, ids.retryable, ids.uncertain].sort(),
    );
    expect(await idsOf({ status: 'submitted' })).to.deep.equal(
      [ids.accepted, ids.confirmed, ids.absent, ids.verified, ids.changeAbsent, ids.rejected].sort(),
    );
    expect(await idsOf({ targetType: 'Campaign', targetId: campaignB })).to.deep.equal([ids.submitting]);
    expect(await idsOf({ targetType: 'AdGroup' })).to.deep.equal([]);
    expect(await idsOf({ action: 'create_ad_group' })).to.deep.equal(
      [ids.confirmed, ids.absent, ids.unresolved].sort(),
    );
    expect(await idsOf({ idempotency: { namespace: 'user-1', key: 'k-1' } })).to.deep.equal([ids.queued]);
    expect(
      await idsOf({ idempotency: { namespace: 'user-2', key: 'k-1' } }),
      'another namespace, and not my account',
    ).to.deep.equal([]);
  });

  it('a forged cursor is invalid_cursor', async () => {
    let error: unknown;
    try {
      await listReceipts(db, { accountIds: [account], limit: 5, cursor: 'bm9wZQ' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('invalid_cursor');
  });

  it("a target's receipts: every pending one plus the latest settled one, oldest first", async () => {
    const map = await receiptsForTargets(db, 'Campaign', [campaignA, campaignB, newId()]);
    expect([...map.keys()].sort()).to.deep.equal([campaignA, campaignB].sort());
    // on campaign A, settled in admission order: accepted, blocked, confirmed, absent, unresolved, rejected (the latest)
    expect(map.get(campaignA)!.map((r) => r.id)).to.deep.equal([
      ids.queued,
      ids.retryable,
      ids.uncertain,
      ids.rejected,
    ]);
    expect(map.get(campaignA)![0]!.payload).to.deep.equal({ state: 'PAUSED' });
    expect(map.get(campaignB)!.map((r) => r.id)).to.deep.equal([ids.submitting]);
    expect((await receiptsForTargets(db, 'AdGroup', [campaignA])).size, 'another target type').to.equal(0);
  });

  it("an advertising profile's receipts: every pending one plus the latest settled one of each attempted creation", async () => {
    const profile = { type: 'AdvertisingProfile' as const, id: newId() };
    const campaign = (name: string) => ({
      name,
      targetingType: 'AUTO',
      state: 'ENABLED',
      budget: { budget: 10, budgetType: 'DAILY' },
    });
    const settle = async (id: string, accepted: boolean) => {
      await start(id);
      await run({
        type: 'RecordSubmission',
        receipt_id: id,
        ...answer(207),
        submission_id: null,
        accepted,
        created: null,
      });
    };
    const teaFirst = await admit({ target: profile, action: 'create_campaign', payload: campaign('Tea') });
    await settle(teaFirst, false);
    const coffee = await admit({ target: profile, action: 'create_campaign', payload: campaign('Coffee') });
    await settle(coffee, true);
    const teaAgain = await admit({ target: profile, action: 'create_campaign', payload: campaign('Tea') });
    await settle(teaAgain, true);
    const queued = await admit({ target: profile, action: 'create_campaign', payload: campaign('Tea') });
    await projector.whenCaughtUp(last);
    const map = await receiptsForTargets(db, 'AdvertisingProfile', [profile.id]);
    expect(map.get(profile.id)!.map((r) => r.id)).to.deep.equal([coffee, teaAgain, queued]);
  });

  it('two workers racing to dispatch the same receipt: one wins, the other is refused', async () => {
    const id = await admit();
    const results = await Promise.allSettled([start(id), start(id)]);
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).to.be.instanceOf(DomainError);
    expect((refused.reason as DomainError).detail).to.match(/is submitting: StartDispatch/);
    expect((await store.readStream(`mutation-${id}`)).map((e) => e.type)).to.deep.equal([
      'MutationAdmitted',
      'MutationDispatchStarted',
    ]);
    expect((await store.readStream(`mutation-${id}`))[0]!.metadata.account_id).to.equal(account);
  });

  it('applying the same events twice changes nothing', async () => {
    const events = (await store.readAll({ after: null, limit: 100_000 })).filter((e) =>
      mutationsProjection.handles.includes(e.type),
    );
    await assertApplyTwiceSameResult(db, mutationsProjection, events);
  });

  it('a batch leaves the rows that one event at a time leaves', async () => {
    const events = (await store.readAll({ after: null, limit: 100_000 })).filter((e) =>
      mutationsProjection.handles.includes(e.type),
    );
    // receipts of every status, their events interleaved: each receipt's changes fold in order
    expect(new Set(events.map((e) => e.streamId)).size).to.be.at.least(8);
    await assertBatchEqualsOneByOne(db, mutationsProjection, events);
  });

  it('rebuilt tables equal the live ones', async () => {
    await projector.whenCaughtUp(last);
    await assertRebuildEqualsLive(db, store, mutationsProjection);
  });
});
