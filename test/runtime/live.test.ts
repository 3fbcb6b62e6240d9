import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { Webhook as Verifier } from 'standardwebhooks';
import { activateAutomation } from '../../src/commands/automation/activation.js';
import type { AutomationCall } from '../../src/commands/automation/context.js';
import { archiveAutomation, createAutomation, editAutomation } from '../../src/commands/automation/lifecycle.js';
import { setAutomationsPaused } from '../../src/commands/automation/pause.js';
import { marketplaceEventStream, recordMarketplaceEvent } from '../../src/commands/event/record.js';
import { automationRunId, type AutomationAction } from '../../src/domain/automation-run/events.js';
import { listingId } from '../../src/domain/observation/ids.js';
import type { Position } from '../../src/eventstore/port.js';
import { partitionOf } from '../../src/domain/shared/partitions.js';
import { createDb } from '../../src/infra/db.js';
import { loadAccount, type AccountView } from '../../src/projections/accounts/queries.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import { loadStoreSnapshot } from '../../src/projections/automation-store/queries.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { eventFixture } from '../../src/runtime/contracts/index.js';
import { startLiveReactor, type LiveReactor } from '../../src/runtime/live/reactor.js';
import { createSandbox, type Sandbox } from '../../src/runtime/sandbox/index.js';
import type { RunningWebhooks } from '../../src/workers/webhook/queue.js';
import { startAlertsWebhook, type AlertsWebhook } from '../support/alerts-webhook.js';
import { startAutomationWorld, type AutomationWorld, type RaisedEvent } from '../support/automation-world.js';
import { sleep, until, type Receiver } from '../support/receiver.js';
import { QUIET_KNEX_LOG, startTcpProxy } from '../support/tcp-proxy.js';

type Json = Record<string, any>;

// The live-runs reactor against the demo seller's read models, the real event store, sandbox,
// Redis delivery queue and a local webhook receiver: each ingested event runs the account's live
// automation once per listing it reached, and what the run decided is recorded as its actions.

const REPRICE = `
function handle(event, context) {
  const n = (context.store.get('runs') ?? 0) + 1;
  context.store.set('runs', n);
  context.mutations.push({ target: context.listing, action: 'update', payload: {
    productType: 'PRODUCT',
    patches: [{ op: 'merge', path: '/attributes/purchasable_offer', value: [{
      marketplace_id: context.listing.marketplace.id, currency: context.listing.currencyCode, audience: 'ALL',
      our_price: [{ schedule: [{ value_with_tax: 19.99 }] }] }] }] } });
  context.webhooks.alerts.post('repriced ' + context.listing.sku + ' run ' + n);
}`;

describe('live automation runs (the reactor)', function () {
  this.timeout(300_000);
  const t = {} as {
    w: AutomationWorld;
    account: AccountView;
    call: AutomationCall;
    automation: string;
    sandbox: Sandbox;
    alerts: AlertsWebhook;
    webhooks: RunningWebhooks;
    receiver: Receiver;
    secret: string;
    reactor: LiveReactor | null;
    checkpoint: string;
    sku: string;
    marketplace: string;
  };
  const logger = pino({ level: 'silent' });

  const start = async () =>
    (t.reactor = await startLiveReactor({
      db: t.w.h.db,
      store: t.w.h.store,
      sandbox: t.sandbox,
      logger,
      enqueueWebhookPosts: (input) => t.webhooks.enqueueWebhookPosts(input),
      name: t.checkpoint,
      backoffMs: { base: 20, max: 200 },
      attempts: 2,
      now: t.w.now,
    }));
  const version = async () => {
    const rows = await t.w.h.store.readStream(`automation-${t.automation}`);
    return rows.filter((r) => ['AutomationCreated', 'AutomationCodeSaved'].includes(r.type)).length;
  };
  const setCode = async (code: string) => {
    await editAutomation(t.call, t.automation, { code });
  };
  const raise = () => t.w.raise('ANY_OFFER_CHANGED', { sku: t.sku, marketplaceId: t.marketplace });
  const listing = () => listingId(t.account.id, t.marketplace, t.sku);
  /** The run's record once the reactor wrote it. */
  const recorded = async (event: RaisedEvent, v?: number): Promise<Json> => {
    const run_id = automationRunId({
      automation_id: t.automation,
      automation_version: v ?? (await version()),
      event_id: event.eventId,
      listing_id: listing(),
    });
    let found: Json | undefined;
    for (let i = 0; i < 6000 && !found; i++) {
      found = (await t.w.h.store.readStream(`automation_run-${run_id}`))[0]?.data as Json | undefined;
      if (!found) await new Promise((r) => setTimeout(r, 10));
    }
    expect(found, `run ${run_id} recorded`).to.not.equal(undefined);
    return found!;
  };
  const receiptsOfEvent = async (eventId: string) => {
    await t.w.h.projector.whenCaughtUp();
    return (
      await t.w.h.db.withSchema('rm').table('mutation_receipts').where({ target_id: listing() }).select('caused_by')
    )
      .map((r: Json) => r.caused_by)
      .filter((c: Json | null) => c?.event_id === eventId);
  };

  before(async () => {
    t.w = await startAutomationWorld({
      deals: false,
      projections: [automationsProjection, automationRunsProjection, automationStoreProjection, webhooksProjection],
    });
    t.account = (await loadAccount(t.w.h.db, t.w.account))!;
    const [first] = await t.w.advertised();
    t.sku = first!.sku;
    t.marketplace = first!.marketplace_id;
    t.call = {
      store: t.w.h.store,
      userId: randomUUID(),
      accounts: [t.account],
      at: t.w.now(),
      correlationId: randomUUID(),
      simulate: false,
    };
    t.checkpoint = `live-runs-test-${randomUUID().slice(0, 8)}`;
    t.sandbox = createSandbox({ runners: 2 });
    t.alerts = await startAlertsWebhook(t.w, t.account.id, 'live-test-signing-key', logger);
    ({ webhooks: t.webhooks, receiver: t.receiver, secret: t.secret } = t.alerts);
    t.automation = await createAutomation(t.call, {
      account: t.account,
      stream_type: 'ANY_OFFER_CHANGED',
      title: 'Reprice',
      code: REPRICE,
      operation_dependencies: {},
    });
    await activateAutomation(t.call, t.automation);
    await t.w.h.projector.whenCaughtUp();
    t.reactor = null;
    await start();
  });
  after(async () => {
    await t.reactor?.close();
    await t.alerts?.close();
    await t.sandbox?.close();
    await t.w?.close();
  });

  it('runs the live automation once per (event, listing): receipt applied, store written, one signed post', async () => {
    const event = await raise();
    const run = await recorded(event);
    expect(run.error_message).to.equal(null);
    expect(run.store_changes).to.equal(1);
    expect(run.webhook_posts).to.equal(1);
    const [action] = run.actions as AutomationAction[];
    expect(action).to.include({
      kind: 'mutation',
      status: 'applied',
      value: 19.99,
      target_type: 'Listing',
      sku: t.sku,
    });
    expect(action!.receipt_id).to.be.a('string');
    // the receipt names the event and the automation version that caused it, in its data and metadata
    const [admitted] = await t.w.h.store.readStream(`mutation-${action!.receipt_id}`);
    expect((admitted!.data as Json).caused_by).to.deep.include({
      automation_id: t.automation,
      automation_version: 1,
      event_id: event.eventId,
      run_id: run.run_id,
    });
    expect(admitted!.metadata).to.include({ correlation_id: event.eventId, causation_id: run.run_id });
    await until(() => t.receiver.received.length >= 1, 30_000);
    const got = t.receiver.received[0]!;
    expect(new Verifier(t.secret).verify(got.body, got.headers as Record<string, string>)).to.deep.equal({
      text: `repriced ${t.sku} run 1`,
    });
    await t.w.h.projector.whenCaughtUp();
    expect(await loadStoreSnapshot(t.w.h.db, t.automation, t.w.now())).to.deep.equal({ runs: 1 });
    expect(await receiptsOfEvent(event.eventId)).to.have.length(1);
  });

  it('resumes after a restart from its checkpoint; events run again admit nothing twice', async () => {
    const first = await raise();
    await recorded(first);
    await t.reactor!.close();
    const missed = await raise(); // recorded while no reactor runs
    // a crash before the checkpoint passed `first`: move it back to just before it
    const { stream } = await t.w.h.db
      .withSchema('rm')
      .table('marketplace_events')
      .where({ id: first.eventId })
      .first('stream');
    const before = (await t.w.h.store.readStream(stream))[0]!.position;
    await setCheckpoint(t.checkpoint, { commit: before.commit, prepare: before.prepare - 1n });
    await start();
    const run = await recorded(missed);
    expect(run.error_message).to.equal(null);
    // `first` was taken again (same listing, same lane: before `missed`)
    expect(t.reactor!.stats().events).to.equal(2);
    await until(() => t.receiver.received.length >= 3, 30_000);
    expect(await receiptsOfEvent(first.eventId)).to.have.length(1);
    expect(await receiptsOfEvent(missed.eventId)).to.have.length(1);
    // the rerun of `first` posted nothing again: three posts for three events
    await new Promise((r) => setTimeout(r, 500));
    expect(t.receiver.received).to.have.length(3);
  });

  it('a lease that lapsed while an event was in flight, claimed again by the same worker, runs it once', async () => {
    await t.reactor!.close();
    // the leases on a connection of their own, as the worker role has them; a short lease, renewed often
    const leasesDb = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
    const name = `live-lapse-${randomUUID().slice(0, 8)}`;
    const options = {
      db: t.w.h.db,
      leasesDb,
      store: t.w.h.store,
      sandbox: t.sandbox,
      logger,
      name,
      leaseMs: 1_000,
      renewEveryMs: 100,
      now: t.w.now,
    };
    // an event's posts wait until `go`: its run stays in flight
    let go!: () => void;
    const gate = new Promise<void>((resolve) => (go = resolve));
    const posts: string[] = [];
    const reactor = await startLiveReactor({
      ...options,
      enqueueWebhookPosts: async (input) => {
        posts.push(input.cause.eventId);
        await gate;
        return t.webhooks.enqueueWebhookPosts(input);
      },
    });
    const partition = partitionOf(t.account.id, 32);
    try {
      const first = await raise();
      await until(() => posts.includes(first.eventId), 30_000);
      // the renewals wait behind a lock on the partitions' rows: the lease lapses on the worker's
      // clock; an event taken then lets the partition go, and the next round claims it again
      let second!: RaisedEvent;
      await t.w.h.db.transaction(async (trx) => {
        await trx.raw(`select 1 from reactors.partitions where name = ? for update`, [name]);
        await sleep(1_500);
        second = await raise();
        await until(() => !reactor.stats().partitions.includes(partition), 30_000);
      });
      await until(() => reactor.stats().partitions.includes(partition), 30_000);
      go();
      // the same lane: the second runs after the first (and after any rerun of it)
      expect((await recorded(second)).error_message).to.equal(null);
      await sleep(500);
      expect(
        posts.filter((id) => id === first.eventId),
        'the first event run in flight, once',
      ).to.have.length(1);
      expect(posts.filter((id) => id === second.eventId)).to.have.length(1);
      expect(reactor.stats().runs, 'runs settled by the worker').to.equal(2);
      expect(await receiptsOfEvent(first.eventId)).to.have.length(1);
    } finally {
      go();
      await reactor.close();
      await leasesDb.destroy();
      await start();
    }
  });

  it('the database away for longer than the retries: the event waits for it and runs once, not given up as poison', async () => {
    await t.reactor!.close();
    // the reactor's reads and writes through a relay the test cuts; the log and the leases direct
    const url = new URL(process.env.DATABASE_URL!);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(proxy.port);
    const db = createDb(url.toString(), { min: 0, max: 4 }, QUIET_KNEX_LOG);
    const leasesDb = createDb(process.env.DATABASE_URL!, { min: 0, max: 1 });
    const reactor = await startLiveReactor({
      db,
      leasesDb,
      store: t.w.h.store,
      sandbox: t.sandbox,
      logger,
      enqueueWebhookPosts: (input) => t.webhooks.enqueueWebhookPosts(input),
      name: `live-outage-${randomUUID().slice(0, 8)}`,
      // two attempts 20-200 ms apart: an event failing for its own reasons is poison within a second
      backoffMs: { base: 20, max: 200 },
      attempts: 2,
      now: t.w.now,
    });
    try {
      proxy.down();
      const event = await raise();
      await sleep(2_000);
      expect(reactor.stats(), 'taken, waiting for the database').to.include({ events: 1, runs: 0, poison: 0 });
      proxy.up();
      const run = await recorded(event);
      expect(run.error_message).to.equal(null);
      expect((run.actions as AutomationAction[])[0]).to.include({ status: 'applied' });
      expect(reactor.stats()).to.include({ runs: 1, poison: 0 });
      expect(await receiptsOfEvent(event.eventId)).to.have.length(1);
    } finally {
      proxy.up();
      await reactor.close();
      await Promise.all([db.destroy(), leasesDb.destroy(), proxy.close()]);
      await start();
    }
  });

  it('a blocked listing makes the action blocked, with why', async () => {
    await t.w.withhold({ type: 'Listing', id: listing() }, true);
    try {
      const run = await recorded(await raise());
      expect(run.actions[0]).to.include({ status: 'blocked' });
      expect(run.actions[0].error_message).to.match(/block/);
    } finally {
      await t.w.withhold({ type: 'Listing', id: listing() }, false);
    }
  });

  it('invalid output is a failed action; a failing handler applies no store write', async () => {
    await setCode(`function handle(event, context) {
      context.mutations.push({ target: context.listing, action: 'explode', payload: {} });
    }`);
    const run = await recorded(await raise());
    expect(run.actions[0]).to.include({ kind: 'mutation', status: 'failed' });
    expect(run.actions[0].error_message).to.be.a('string').and.not.equal('');

    await setCode(`function handle(event, context) { context.store.set('runs', 1000); throw new Error('nope'); }`);
    const failed = await recorded(await raise());
    expect(failed.error_message).to.match(/nope/);
    expect(failed.store_changes).to.equal(0);
    await t.w.h.projector.whenCaughtUp();
    expect((await loadStoreSnapshot(t.w.h.db, t.automation, t.w.now())).runs).to.not.equal(1000);
  });

  it('warns about a missing top-level key at most once a day per automation', async () => {
    await setCode(`function handle(event, context) { if (event.NoSuchKey) context.mutations.push(1); }`);
    const first = await recorded(await raise());
    const second = await recorded(await raise());
    expect(first.actions).to.have.length(1);
    expect(first.actions[0]).to.include({ kind: 'warning', status: null });
    expect(first.actions[0].missing_fields).to.include('NoSuchKey');
    expect(second.actions).to.deep.equal([]);
    expect(second.missing_fields).to.include('NoSuchKey');
  });

  it('a poison event (one it can never run) is recorded as a failed run and skipped; the next runs', async () => {
    // an account the read models don't know, with a live automation: every attempt fails
    const ghost = { ...t.account, id: randomUUID() };
    const call = { ...t.call, accounts: [ghost] };
    const automation = await createAutomation(call, {
      account: ghost,
      stream_type: 'ANY_OFFER_CHANGED',
      title: 'Ghost',
      code: 'function handle(event, context) {}',
      operation_dependencies: {},
    });
    await activateAutomation(call, automation);
    const message_id = randomUUID();
    const at = t.w.now().toISOString();
    await recordMarketplaceEvent(t.w.h.store, {
      account_id: ghost.id,
      message_id,
      stream_type: 'ANY_OFFER_CHANGED',
      source: 'selling',
      occurred_at: at,
      received_at: at,
      payload: eventFixture('ANY_OFFER_CHANGED')!,
    });
    const [poison] = await t.w.h.store.readStream(marketplaceEventStream(ghost.id, message_id));
    const run_id = automationRunId({
      automation_id: automation,
      automation_version: 1,
      event_id: poison!.id,
      listing_id: null,
    });
    let given: Json | undefined;
    for (let i = 0; i < 6000 && !given; i++) {
      given = (await t.w.h.store.readStream(`automation_run-${run_id}`))[0]?.data as Json | undefined;
      if (!given) await new Promise((r) => setTimeout(r, 10));
    }
    expect(given?.error_message).to.match(
      /gave this event up after 2 attempts: account .* is not in the accounts read model/,
    );
    expect(t.reactor!.stats().poison).to.equal(1);
    // the reactor goes on
    expect((await recorded(await raise())).run.event_id).to.be.a('string');
  });

  it('each event runs what was live when it was recorded: another automation at once, none once that is archived', async () => {
    const runOf = async (automation_id: string, automation_version: number, event: RaisedEvent) =>
      t.w.h.store.readStream(
        `automation_run-${automationRunId({ automation_id, automation_version, event_id: event.eventId, listing_id: listing() })}`,
      );
    const other = await createAutomation(t.call, {
      account: t.account,
      stream_type: 'ANY_OFFER_CHANGED',
      title: 'Quiet',
      code: 'function handle(event, context) {}',
      operation_dependencies: {},
    });
    let second: RaisedEvent;
    try {
      await activateAutomation(t.call, other);
      const first = await raise();
      for (let i = 0; i < 6000 && (await runOf(other, 1, first)).length === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(await runOf(other, 1, first), 'the automation activated last runs').to.have.length(1);
      await archiveAutomation(t.call, other);
      second = await raise();
    } finally {
      await activateAutomation(t.call, t.automation);
    }
    // the same listing's lane: the second event was finished before the third ran
    expect((await recorded(await raise())).error_message).to.equal(null);
    expect(await runOf(other, 1, second), 'an archived automation runs no more').to.deep.equal([]);
    expect(await runOf(t.automation, await version(), second), 'nor one activated after the event').to.deep.equal([]);
  });

  it("runs none of the account's automations while the seller paused them, nor on resuming what came meanwhile", async () => {
    const seller = { store: t.w.h.store, metadata: { actor: { kind: 'user' as const, id: t.call.userId } } };
    const pause = (paused: boolean) =>
      setAutomationsPaused(seller, { account_id: t.account.id, paused, by: t.call.userId, at: new Date() });
    let during: RaisedEvent;
    try {
      expect(await pause(true)).to.not.equal(null);
      expect(await pause(true), 'paused already: nothing recorded').to.equal(null);
      during = await raise();
    } finally {
      await pause(false);
    }
    // the same listing's lane: the event raised during the pause was taken before this one ran
    expect((await recorded(await raise())).error_message).to.equal(null);
    const run_id = automationRunId({
      automation_id: t.automation,
      automation_version: await version(),
      event_id: during.eventId,
      listing_id: listing(),
    });
    expect(await t.w.h.store.readStream(`automation_run-${run_id}`), 'not run while paused').to.deep.equal([]);
  });

  async function setCheckpoint(name: string, p: Position) {
    await t.w.h.db.raw(`update reactors.partitions set commit_position = ?, prepare_position = ? where name = ?`, [
      p.commit.toString(),
      p.prepare.toString(),
      name,
    ]);
  }
});
