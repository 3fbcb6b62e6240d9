import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { automationRunId } from '../../src/domain/automation-run/events.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { loadAccount, type AccountView } from '../../src/projections/accounts/queries.js';
import { runAutomation, type RunDeps, type RunRequest } from '../../src/runtime/run.js';
import { createSandbox, type Sandbox } from '../../src/runtime/sandbox/index.js';
import { startAutomationWorld, type AutomationWorld, type RaisedEvent } from '../support/automation-world.js';

// The run orchestrator both dry runs and the live reactor use, on the demo seller: one run per
// listing the event reached, each through the sandbox and the outbox in the run's mode. It
// records and applies nothing itself: a live run admits its outbox (once per automation
// version, event and listing), and hands back its store writes and webhook posts as intents.

const PRICE_AND_INTENTS = `function handle(event, context) {
  const l = context.listing;
  context.store.set('seen', l.sku);
  console.log(l.sku, context.store.get('seen'));
  context.mutations.push({ target: l, action: 'update', payload: { productType: 'PRODUCT', patches: [{
    op: 'merge', path: '/attributes/purchasable_offer', value: [{ marketplace_id: l.marketplace.id,
    currency: l.currencyCode, audience: 'ALL', our_price: [{ schedule: [{ value_with_tax: 12.34 }] }] }] }] } });
}`;

describe('runAutomation (src/runtime/run.ts)', function () {
  this.timeout(300_000);
  let w: AutomationWorld;
  let sandbox: Sandbox;
  let account: AccountView;
  let event: RaisedEvent;
  let deps: RunDeps;
  const automation = { id: randomUUID(), version: 3, code: PRICE_AND_INTENTS };
  const request = (more: Partial<RunRequest>): RunRequest => ({
    mode: 'dry',
    automation,
    account,
    streamType: 'ANY_OFFER_CHANGED',
    event: { id: event.eventId, payload: event.payload },
    now: w.now(),
    ...more,
  });
  const receipts = async () => Number((await w.h.db.withSchema('rm').table('mutation_receipts').count('* as n'))[0]!.n);

  before(async () => {
    w = await startAutomationWorld({ deals: false, projections: [webhooksProjection, automationStoreProjection] });
    sandbox = createSandbox({ runners: 2 });
    account = (await loadAccount(w.h.db, w.account))!;
    deps = { db: w.h.db, store: w.h.store, logger: pino({ level: 'silent' }), sandbox };
    const [first] = await w.advertised();
    event = await w.raise('ANY_OFFER_CHANGED', { sku: first!.sku, marketplaceId: first!.marketplace_id });
  });
  after(async () => {
    await sandbox?.close();
    await w?.close();
  });

  it('dry: one run per reached listing, the receipt it would get, intents returned, nothing appended', async () => {
    const head = await w.h.store.headPosition();
    const runs = await runAutomation(deps, request({}));
    expect(runs.length).to.be.greaterThan(0);
    for (const run of runs) {
      expect(run.error).to.equal(null);
      expect(run.caused_by).to.include({
        automation_id: automation.id,
        automation_version: 3,
        event_id: event.eventId,
      });
      expect(run.caused_by.listing_id).to.equal(run.listingId);
      expect(run.outbox!.actions.map((a) => [a.status, a.receipt?.id])).to.deep.equal([['applied', null]]);
      expect(run.storeEffects).to.deep.equal([{ op: 'set', key: 'seen', value: run.logs[0]!.message.split(' ')[0] }]);
    }
    expect(await w.h.store.headPosition()).to.deep.equal(head);
  });

  it('single: several listings reached without listingId is listing_required, before anything runs', async () => {
    const runs = await runAutomation(deps, request({}));
    if (runs.length < 2) return expect(await runAutomation(deps, request({ single: true }))).to.have.length(1);
    const err = await runAutomation(deps, request({ single: true })).then(
      () => null,
      (e: { code?: string }) => e,
    );
    expect(err?.code).to.equal('listing_required');
  });

  it('live: admits once per (automation version, event, listing) under the derived run id; a rerun replays', async () => {
    const [one] = await runAutomation(deps, request({}));
    const listingId = one!.listingId!;
    const before = await receipts();
    const [live] = await runAutomation(deps, request({ mode: 'live', listingId }));
    expect(live!.run_id).to.equal(
      automationRunId({
        automation_id: automation.id,
        automation_version: 3,
        event_id: event.eventId,
        listing_id: listingId,
      }),
    );
    const [action] = live!.outbox!.actions;
    expect(action!.status).to.equal('applied');
    expect(action!.receipt!.id).to.be.a('string');
    await w.h.projector.whenCaughtUp();
    expect(await receipts()).to.equal(before + 1);
    const [again] = await runAutomation(deps, request({ mode: 'live', listingId }));
    expect(again!.outbox!.replayed).to.equal(true);
    expect(again!.outbox!.actions[0]!.receipt!.id).to.equal(action!.receipt!.id);
    await w.h.projector.whenCaughtUp();
    expect(await receipts()).to.equal(before + 1);
  });

  it('a handler failure is the run’s error, with its logs; nothing is admitted', async () => {
    const runs = await runAutomation(
      deps,
      request({ automation: { ...automation, code: "function handle(e, c) { console.log('x'); null.f; }" } }),
    );
    for (const run of runs) {
      expect(run.error!.code).to.equal('execution_error');
      expect(run.error!.message).to.match(/^TypeError: /);
      expect(run.logs).to.deep.equal([{ level: 'log', message: 'x' }]);
      expect(run.outbox).to.equal(null);
    }
  });

  it('live needs a saved automation and a recorded event', async () => {
    const err = await runAutomation(deps, request({ mode: 'live', event: { id: null, payload: event.payload } })).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.match(/live run needs/);
  });
});
