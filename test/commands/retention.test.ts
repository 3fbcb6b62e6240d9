import { expect } from 'chai';
import { pruneExpiredEvents } from '../../src/commands/event/prune.js';
import { recordMarketplaceEvent } from '../../src/commands/event/record.js';
import { handleCommand } from '../../src/commands/shared/handler.js';
import { executeMutationCommand } from '../../src/commands/mutation/execute.js';
import { pruneSettledReceipts } from '../../src/commands/mutation/prune.js';
import { pruneWebhookDeliveries } from '../../src/commands/webhook/prune.js';
import { pruneBacktests } from '../../src/commands/backtest/prune.js';
import { startBacktest } from '../../src/commands/backtest/start.js';
import { backtestDecider } from '../../src/domain/backtest/decide.js';
import { backtestsProjection } from '../../src/projections/backtests/projection.js';
import { idempotencyDecider, idempotencyStreamId } from '../../src/domain/admission/idempotency.js';
import type { MutationCommand } from '../../src/domain/mutation/decide.js';
import type { Idempotency } from '../../src/domain/mutation/events.js';
import { newId } from '../../src/domain/shared/ids.js';
import { webhookDeliveryDecider, type DeliveryCommand } from '../../src/domain/webhook/delivery.js';
import { DELIVERY_POLICY } from '../../src/domain/webhook/retry.js';
import { pruneAutomationVersions } from '../../src/commands/automation/prune.js';
import { automationDecider, type AutomationCommand } from '../../src/domain/automation/decide.js';
import { liveSlotDecider, liveSlotId } from '../../src/domain/automation/live-slot.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { admissionProjection, CREATED_TARGETS_TABLE } from '../../src/projections/admission/projection.js';
import { eventsProjection } from '../../src/projections/events/projection.js';
import { mutationsProjection } from '../../src/projections/mutations/projection.js';
import { READ_MODEL_SCHEMA } from '../../src/projections/projection.js';
import { pruneCallRecords } from '../../src/projections/views/retention.js';
import { QUERY_DATA_SCHEMA } from '../../src/projections/views/migrate.js';
import { webhookDeliveriesProjection } from '../../src/projections/webhook/deliveries.js';
import { useAutomationRecords } from '../support/automation-records.js';
import { assertRebuildEqualsLive } from '../support/projections.js';

// Retention of spec 8 for the records the hourly retention job prunes besides events, runs and the
// store (their own files test those), and code versions: each on a fixed clock far in the past, so the run's shared
// database keeps every other file's records (they are all younger than the cutoffs used here).

const DAY = 86_400_000;
const T0 = Date.parse('2001-02-03T04:00:00.000Z');
const at = (days: number) => new Date(T0 + days * DAY).toISOString();
/** the prune's clock: 40 days after T0 */
const NOW = new Date(T0 + 40 * DAY);

describe('retention (spec 8): receipts, webhook deliveries, backtests, hourly metrics, tool-call records', function () {
  this.timeout(60_000);
  const r = useAutomationRecords([
    automationsProjection,
    mutationsProjection,
    admissionProjection,
    eventsProjection,
    webhookDeliveriesProjection,
    backtestsProjection,
  ]);
  const rm = (table: string) => r.db.withSchema(READ_MODEL_SCHEMA).table(table);
  const account_id = newId();

  describe('listing and ads requests and their provider answers: 30 days from the last answer, never a pending one', () => {
    const listing = { type: 'Listing' as const, id: newId() };
    const campaign = { type: 'Campaign' as const, id: newId() };
    const mutate = (command: MutationCommand) => executeMutationCommand(r.ctx, command);
    const answer = (recorded_at: string) => ({
      http_status: 200,
      response: { status: 'ACCEPTED', submissionId: 'sub-1' },
      request_id: 'req-1',
      error: null,
      recorded_at,
    });
    const key = (k: string, usedAt: string): Idempotency => ({
      namespace: `user-${account_id}`,
      key: k,
      fingerprint: 'f',
      expires_at: new Date(Date.parse(usedAt) + DAY).toISOString(),
    });
    const useKey = (k: Idempotency, usedAt: string) =>
      handleCommand(
        idempotencyDecider,
        idempotencyStreamId(k.namespace, k.key),
        {
          type: 'RecordKeyUse',
          use: {
            namespace: k.namespace,
            key: k.key,
            fingerprint: k.fingerprint,
            expires_at: k.expires_at,
            results: [],
            admissions: [],
          },
          at: usedAt,
        },
        r.ctx,
      );
    const admit = async (o: {
      target?: { type: 'Listing' | 'Campaign'; id: string };
      action?: string;
      days: number;
      blocked?: boolean;
      idempotency?: Idempotency;
      payload?: Record<string, unknown>;
    }) => {
      const receipt_id = newId();
      const target = o.target ?? listing;
      await mutate({
        type: 'AdmitMutation',
        receipt_id,
        account_id,
        target,
        provider:
          target.type === 'Listing'
            ? { sku: 'SKU-R', marketplaceId: 'ATVPDKIKX0DER' }
            : { profileId: '3001', campaignId: '111' },
        action: (o.action ?? 'update') as 'update',
        payload:
          o.payload ??
          (target.type === 'Listing'
            ? {
                productType: 'PRODUCT',
                patches: [{ op: 'replace', path: '/attributes/item_name', value: [{ value: 'R' }] }],
              }
            : { state: 'PAUSED' }),
        idempotency: o.idempotency ?? null,
        created_at: at(o.days),
        blocked: o.blocked ? { reason: 'listing_blocked', message: 'the listing is blocked' } : null,
      });
      return receipt_id;
    };
    const submit = async (
      receipt_id: string,
      days: number,
      created: { type: 'AdGroup'; id: string; providerId: string } | null = null,
      /** false: already submitting */
      start = true,
    ) => {
      if (start) await mutate({ type: 'StartDispatch', receipt_id, started_at: at(days) });
      await mutate({
        type: 'RecordSubmission',
        receipt_id,
        submission_id: 'sub-1',
        accepted: true,
        created,
        ...answer(at(days)),
      });
    };
    const stream = (id: string) => r.store.readStream(`mutation-${id}`);
    /** an ad group creation on the campaign, submitted and confirmed on day `days` */
    const createAdGroup = async (days: number, providerId: string) => {
      const payload = { name: 'Exact', state: 'ENABLED', defaultBid: 0.5 };
      const receipt_id = await admit({ target: campaign, action: 'create_ad_group', payload, days });
      const created = { type: 'AdGroup' as const, id: newId(), providerId };
      await submit(receipt_id, days, created);
      return [receipt_id, created] as const;
    };

    it('prunes settled receipts (submitted, blocked, a creation) with their rows, synthetic events, created entity and expired key; keeps pending and recent ones; rebuilding gives the live tables', async () => {
      const oldKey = key('k-old', at(0));
      const reusedKey = key('k-reused', at(0));
      await useKey(oldKey, at(0));
      await useKey(reusedKey, at(0));
      const submitted = await admit({ days: 0, idempotency: oldKey });
      await submit(submitted, 0);
      const reusedOnce = await admit({ days: 0, idempotency: reusedKey });
      await submit(reusedOnce, 0);
      // the same key used again 35 days later, by another call: its record stays
      await useKey(key('k-reused', at(35)), at(35));
      const blocked = await admit({ days: 1, blocked: true });
      const [creation, adGroup] = await createAdGroup(2, '222');
      // pending ones, however old: queued, submitting, and uncertain with its target deleted since
      const queued = await admit({ days: 0 });
      const submitting = await admit({ days: 0 });
      await mutate({ type: 'StartDispatch', receipt_id: submitting, started_at: at(0) });
      const uncertain = await admit({ days: 0 });
      await mutate({ type: 'StartDispatch', receipt_id: uncertain, started_at: at(0) });
      await mutate({
        type: 'RecordUncertain',
        receipt_id: uncertain,
        cause: 'reply_lost',
        http_status: null,
        response: null,
        request_id: 'req-lost',
        error: { code: 'timeout', message: 'no reply' },
        recorded_at: at(0),
      });
      await mutate({ type: 'RecordTargetDeleted', receipt_id: uncertain, recorded_at: at(3) });
      // settled, but 29 days before the clock
      const recent = await admit({ days: 11 });
      await submit(recent, 11);
      const [recentCreation, recentAdGroup] = await createAdGroup(11, '223');
      await r.caughtUp();
      const synthetic = async () =>
        (
          await rm('marketplace_events')
            .where({ synthetic: true })
            .whereRaw(`payload->>'receipt_id' = any(?)`, [[submitted, recent]])
            .select(r.db.raw(`payload->>'receipt_id' as receipt_id`))
        ).map((row: { receipt_id: string }) => row.receipt_id);
      expect(await synthetic()).to.have.members([submitted, recent]);
      expect(await rm(CREATED_TARGETS_TABLE).where({ receipt_id: creation }).pluck('id')).to.deep.equal([adGroup.id]);

      // 29 days after the last answer nothing settled is due
      expect(await pruneSettledReceipts(r.db, r.store, new Date(T0 + 29 * DAY))).to.equal(0);
      expect(await pruneSettledReceipts(r.db, r.store, NOW, 2)).to.equal(4);

      for (const gone of [submitted, reusedOnce, blocked, creation]) expect(await stream(gone), gone).to.deep.equal([]);
      for (const kept of [queued, submitting, uncertain, recent, recentCreation])
        expect(await stream(kept), kept).to.not.be.empty;
      const rows = await rm('mutation_receipts').where({ account_id }).select('id', 'status');
      expect(rows).to.have.deep.members([
        { id: queued, status: 'queued' },
        { id: submitting, status: 'submitting' },
        { id: uncertain, status: 'uncertain' },
        { id: recent, status: 'submitted' },
        { id: recentCreation, status: 'submitted' },
      ]);
      expect(
        await rm('mutation_receipt_events').whereIn('receipt_id', [submitted, blocked, creation]).count({ n: '*' }),
      ).to.deep.equal([{ n: '0' }]);
      expect(await synthetic()).to.deep.equal([recent]);
      expect(
        await rm(CREATED_TARGETS_TABLE).whereIn('receipt_id', [creation, recentCreation]).pluck('id'),
      ).to.deep.equal([recentAdGroup.id]);
      expect(
        await r.store.readStream(`idempotency-${idempotencyStreamId(oldKey.namespace, oldKey.key)}`),
      ).to.deep.equal([]);
      expect(
        await r.store.readStream(`idempotency-${idempotencyStreamId(reusedKey.namespace, reusedKey.key)}`),
      ).to.have.length(2);

      expect(await pruneSettledReceipts(r.db, r.store, NOW), 'a second run finds nothing').to.equal(0);
      for (const projection of [mutationsProjection, admissionProjection, eventsProjection])
        await assertRebuildEqualsLive(r.db, r.store, projection);

      // settle what was left pending, so no dispatcher sharing the run's database takes it up
      await mutate({
        type: 'BlockMutation',
        receipt_id: queued,
        reason: 'listing_blocked',
        message: 'test over',
        recorded_at: at(40),
      });
      await submit(submitting, 40, null, false);
      await mutate({
        type: 'ReconcileChange',
        receipt_id: uncertain,
        checks: 0,
        shows: false,
        unchanged: true,
        observed: null,
        checked_at: at(40),
      });
      await r.caughtUp();
      expect(
        await rm('mutation_receipts').where({ account_id }).whereIn('status', ['queued', 'submitting', 'uncertain']),
      ).to.deep.equal([]);
    });
  });

  describe('webhook deliveries: 30 days from the last attempt, never a pending one', () => {
    const deliver = (delivery_id: string, command: DeliveryCommand) =>
      handleCommand(webhookDeliveryDecider, delivery_id, command, r.ctx);
    const request = async (days: number) => {
      const delivery_id = newId();
      await deliver(delivery_id, {
        type: 'RequestDelivery',
        delivery_id,
        account_id,
        webhook_id: newId(),
        webhook_name: 'alerts',
        body: '{"text":"hi"}',
        cause: { kind: 'automation', automation_id: newId(), automation_version: 1, event_id: 'e-1', run_id: null },
        at: at(days),
      });
      return delivery_id;
    };
    const attempt = (delivery_id: string, n: number, status: number, days: number) =>
      deliver(delivery_id, {
        type: 'RecordAttempt',
        attempt: n,
        started_at: at(days),
        duration_ms: 12,
        status,
        failure: null,
        retry_after: null,
        location: null,
        response: 'ok',
        policy: DELIVERY_POLICY,
        at: at(days),
      });

    it('prunes finished deliveries whose last attempt is over 30 days old, with their attempts; keeps pending and recent ones', async () => {
      const delivered = await request(0);
      await attempt(delivered, 1, 200, 0);
      const cancelled = await request(1);
      await deliver(cancelled, { type: 'CancelDelivery', reason: 'webhook removed', at: at(1) });
      // requested long ago, but its last attempt (a retry) 29 days before the clock, then delivered
      const retriedLate = await request(0);
      await attempt(retriedLate, 1, 503, 0);
      await attempt(retriedLate, 2, 200, 11);
      // still waiting for its next attempt
      const pending = await request(0);
      await attempt(pending, 1, 503, 0);
      await r.caughtUp();

      expect(await pruneWebhookDeliveries(r.db, r.store, NOW, 1)).to.equal(2);
      for (const gone of [delivered, cancelled])
        expect(await r.store.readStream(`webhook_delivery-${gone}`), gone).to.deep.equal([]);
      const left = await rm('webhook_deliveries').where({ account_id }).select('delivery_id', 'status');
      expect(left).to.have.deep.members([
        { delivery_id: retriedLate, status: 'delivered' },
        { delivery_id: pending, status: 'pending' },
      ]);
      expect(await rm('webhook_attempts').whereIn('delivery_id', [delivered, cancelled])).to.deep.equal([]);
      expect(await pruneWebhookDeliveries(r.db, r.store, NOW)).to.equal(0);
      await assertRebuildEqualsLive(r.db, r.store, webhookDeliveriesProjection);
      // ended, so no webhook worker sharing the run's database takes it up
      await deliver(pending, { type: 'CancelDelivery', reason: 'test over', at: at(40) });
    });
  });

  describe('backtests: 30 days from their end (from the request when none was recorded)', () => {
    const request = async (days: number) => {
      const backtest_id = newId();
      await startBacktest(
        r.ctx,
        {
          backtest_id,
          user_id: newId(),
          account_id,
          automation_id: null,
          automation_version: 1,
          code: 'function handle(event, context) {}',
          stream_type: 'ANY_OFFER_CHANGED',
          since: at(days - 30),
          until: at(days),
          requested_at: at(days),
        },
        async () => undefined,
      );
      return backtest_id;
    };
    const end = (backtest_id: string, days: number) =>
      handleCommand(
        backtestDecider,
        backtest_id,
        { type: 'Finish', status: 'completed', result: null, error: null, at: at(days) },
        r.ctx,
      );

    it('prunes ended backtests with their results and never-ended ones, once 30 days old; keeps the rest', async () => {
      const ended = await request(0);
      await end(ended, 1);
      const endedLate = await request(0);
      await end(endedLate, 11);
      const lost = await request(2);
      const recent = await request(12);
      await r.caughtUp();

      expect(await pruneBacktests(r.db, r.store, NOW, 1)).to.equal(2);
      for (const gone of [ended, lost]) expect(await r.store.readStream(`backtest-${gone}`), gone).to.deep.equal([]);
      for (const kept of [endedLate, recent])
        expect(await r.store.readStream(`backtest-${kept}`), kept).to.not.deep.equal([]);
      const left = await rm('backtests').whereIn('backtest_id', [ended, endedLate, lost, recent]);
      expect(left.map((b: { backtest_id: string }) => b.backtest_id)).to.have.members([endedLate, recent]);
      expect(await pruneBacktests(r.db, r.store, NOW)).to.equal(0);
      await assertRebuildEqualsLive(r.db, r.store, backtestsProjection);
    });
  });

  describe('hourly advertising-stream metrics: 35 days from the hour described', () => {
    const record = async (stream_type: string, hourDays: number, receivedDays: number) => {
      const message_id = newId();
      expect(
        await recordMarketplaceEvent(r.store, {
          account_id,
          message_id,
          stream_type,
          source: stream_type === 'ORDER_CHANGE' ? 'selling' : 'ads',
          occurred_at: at(hourDays),
          received_at: at(receivedDays),
          payload: { dataset_id: 'sp-traffic', idempotency_id: message_id, time_window_start: at(hourDays) },
        }),
      ).to.equal('recorded');
    };

    it('keeps an hour 34 days old that arrived over a month ago, prunes one 36 days old, and other events a month after receipt', async () => {
      await record('SP_TRAFFIC', 4, 4);
      await record('SP_CONVERSION', 6, 6);
      await record('ORDER_CHANGE', 6, 6);
      await r.caughtUp();
      const left = () => rm('marketplace_events').where({ account_id, synthetic: false }).pluck('stream_type');
      expect(await left()).to.have.members(['SP_TRAFFIC', 'SP_CONVERSION', 'ORDER_CHANGE']);
      // NOW is 36 days after the old hour, 34 after the kept one, 34 days (over a calendar month) after the order
      expect(await pruneExpiredEvents(r.db, r.store, NOW)).to.equal(2);
      expect(await left()).to.deep.equal(['SP_CONVERSION']);
      await assertRebuildEqualsLive(r.db, r.store, eventsProjection);
      expect(await pruneExpiredEvents(r.db, r.store, new Date(T0 + 41 * DAY))).to.equal(0);
      expect(await pruneExpiredEvents(r.db, r.store, new Date(T0 + 42 * DAY))).to.equal(1);
    });
  });

  describe('automation code versions: a year from the edit, the current one always', () => {
    it('compacts the stream: expired versions leave the log and the read model, the rest (and live) stay; edits go on; rebuilding gives the live tables', async () => {
      const id = newId();
      const stream_type = 'ANY_OFFER_CHANGED';
      const code = (n: number) => `function handle(event, context) {} // v${n}`;
      const run = (command: AutomationCommand) => handleCommand(automationDecider, id, command, r.ctx);
      const who = (days: number) => ({ automation_id: id, by: 'user-1', at: at(days) });
      await run({
        type: 'CreateAutomation',
        ...who(0),
        account_id,
        stream_type,
        title: 'Reprice',
        code: code(1),
        operation_dependencies: {},
        source_automation_id: null,
      });
      await run({ type: 'EditAutomation', ...who(100), code: code(2) });
      await handleCommand(
        liveSlotDecider,
        liveSlotId(account_id, stream_type),
        { type: 'ClaimLive', account_id, stream_type, automation_id: id, at: at(101) },
        r.ctx,
      );
      await run({ type: 'ActivateAutomation', ...who(101) });
      await run({ type: 'EditAutomation', ...who(300), code: code(3), title: 'Reprice v3' });
      await r.caughtUp();
      const versions = () =>
        rm('automation_code_versions').where({ automation_id: id }).orderBy('version').pluck('version');
      const types = async () => (await r.store.readStream(`automation-${id}`)).map((e) => e.type);
      expect(await versions()).to.deep.equal([1, 2, 3]);

      // a year before 2002-03-01 is 2001-03-01: version 1 (2001-02-03) expired, version 2 (May) not
      const clock = new Date('2002-03-01T00:00:00.000Z');
      expect(await pruneAutomationVersions(r.db, r.store, new Date('2002-02-01T00:00:00.000Z'))).to.equal(0);
      expect(await pruneAutomationVersions(r.db, r.store, clock)).to.equal(1);
      expect(await types()).to.deep.equal(['AutomationCompacted']);
      await r.caughtUp();
      expect(await versions()).to.deep.equal([2, 3]);
      expect(
        await rm('automations').where({ automation_id: id }).first('version', 'live', 'title', 'code'),
      ).to.deep.equal({
        version: 3,
        live: true,
        title: 'Reprice v3',
        code: code(3),
      });
      expect(await pruneAutomationVersions(r.db, r.store, clock), 'a second run finds nothing').to.equal(0);

      await run({ type: 'EditAutomation', ...who(400), code: code(4) });
      expect(await types()).to.deep.equal(['AutomationCompacted', 'AutomationCodeSaved']);
      await r.caughtUp();
      expect(await versions()).to.deep.equal([2, 3, 4]);
      await assertRebuildEqualsLive(r.db, r.store, automationsProjection);
    });
  });

  describe('MCP tool-call records: a month from the call', () => {
    it("prunes the throttles' call log a month after each call and query_data exports once expired", async () => {
      const user_id = newId();
      const calls = () => r.db.withSchema(QUERY_DATA_SCHEMA).table('calls');
      const exports = () => r.db.withSchema(QUERY_DATA_SCHEMA).table('exports');
      await calls().insert([
        { user_id, kind: 'query_data', at: at(0) },
        { user_id, kind: 'activation', at: at(9) },
        { user_id, kind: 'query_data', at: at(11) },
      ]);
      const file = (id_hash: string, expiresDays: number) => ({
        id_hash,
        user_id,
        endpoint: 'mcp',
        columns: JSON.stringify([]),
        row_count: 0,
        body: Buffer.from(''),
        created_at: at(expiresDays - 1),
        expires_at: at(expiresDays),
      });
      await exports().insert([file(`old-${user_id}`, 39), file(`live-${user_id}`, 41)]);
      const cutoff = new Date(T0 + 10 * DAY);
      expect(await pruneCallRecords(r.db, cutoff, NOW)).to.equal(3);
      expect((await calls().where({ user_id }).pluck('at')).map((d: Date) => d.toISOString())).to.deep.equal([at(11)]);
      expect(await exports().where({ user_id }).pluck('id_hash')).to.deep.equal([`live-${user_id}`]);
    });
  });
});
