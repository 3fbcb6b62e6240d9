import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import type { AdmissionDeps } from '../../src/commands/admission/admit.js';
import type { CausedBy } from '../../src/domain/mutation/events.js';
import { listingId } from '../../src/domain/observation/ids.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { loadAccount, type AccountView } from '../../src/projections/accounts/queries.js';
import { getReceipt } from '../../src/projections/mutations/queries.js';
import { buildContexts } from '../../src/runtime/context/index.js';
import { admitOutbox, type OutboxOutcome } from '../../src/runtime/outbox/index.js';
import {
  priceUpdate,
  startAutomationWorld,
  type AutomationWorld,
  type RaisedEvent,
} from '../support/automation-world.js';

type Json = Record<string, any>;

// The outbox of automation runs admitted through the same command as queue_mutations, against the
// demo seller's read models and the real event store: what a dry run answers without appending,
// what a live run admits once, and what is dropped, refused or withheld.
describe('automation outbox', function () {
  this.timeout(300_000);
  /** the world, its account, admission's deps, the event the runs handle, its listing's context and another listing's */
  const t = {} as {
    w: AutomationWorld;
    account: AccountView;
    deps: AdmissionDeps;
    event: RaisedEvent;
    listing: Json;
    other: Json;
  };

  const run = (overrides: Partial<CausedBy> = {}): CausedBy => ({
    automation_id: randomUUID(),
    automation_version: 1,
    event_id: t.event.eventId,
    run_id: randomUUID(),
    listing_id: t.listing.id,
    ...overrides,
  });
  const admit = (mode: 'dry' | 'live', caused_by: CausedBy, pushed: unknown): Promise<OutboxOutcome> =>
    admitOutbox({ ...t.deps, now: t.w.now() }, { mode, account: t.account, caused_by, pushed });
  const receiptsOf = async (targetId: string) =>
    Number(
      (await t.w.h.db.withSchema('rm').table('mutation_receipts').where({ target_id: targetId }).count('* as n'))[0]!.n,
    );
  const contextOf = async (sku: string, marketplaceId: string) => {
    const raised = await t.w.raise('ANY_OFFER_CHANGED', { sku, marketplaceId });
    const [built] = await buildContexts({
      db: t.w.h.db,
      store: t.w.h.store,
      account: t.account,
      streamType: 'ANY_OFFER_CHANGED',
      event: raised.payload,
      now: t.w.now(),
    });
    return { raised, context: built!.context as Json };
  };

  before(async () => {
    t.w = await startAutomationWorld({ deals: false });
    t.account = (await loadAccount(t.w.h.db, t.w.account))!;
    t.deps = { db: t.w.h.db, store: t.w.h.store, now: t.w.now(), logger: pino({ level: 'silent' }) };
    const advertised = await t.w.advertised();
    const first = await contextOf(advertised[0]!.sku, advertised[0]!.marketplace_id);
    ({ raised: t.event } = first);
    t.listing = first.context.listing;
    const second = advertised.find((a) => a.sku !== t.listing.sku)!;
    t.other = (await contextOf(second.sku, second.marketplace_id)).context.listing;
  });
  after(() => t.w?.close());

  it('dry: answers each push as the receipt it would get, appends nothing', async () => {
    const head = await t.w.h.store.headPosition();
    const outcome = await admit('dry', run(), [
      priceUpdate(t.listing, 12.34),
      { target: t.listing.campaigns[0], action: 'update', payload: { state: 'PAUSED' } },
    ]);
    expect(await t.w.h.store.headPosition()).to.deep.equal(head);
    expect(outcome.rejected).to.equal(null);
    expect(outcome.actions.map((a) => [a.index, a.status, a.receipt?.status, a.receipt?.id])).to.deep.equal([
      [0, 'applied', 'queued', null],
      [1, 'applied', 'queued', null],
    ]);
    // the listing fields of spec 2.10, the price as the patch states it (major units)
    expect(outcome.actions[0]).to.include({
      value: 12.34,
      asin: t.listing.asin,
      sku: t.listing.sku,
      marketplace_id: t.listing.marketplace.id,
      title: t.listing.title,
      account_id: t.account.id,
      account_name: t.account.name,
    });
    expect(await receiptsOf(t.listing.id)).to.equal(0);
  });

  it('live: admits each push with the run that caused it on the receipt and in its metadata', async () => {
    const caused_by = run();
    const outcome = await admit('live', caused_by, [
      priceUpdate(t.listing, 12.5),
      { target: t.listing.adGroups[0], action: 'update', payload: { defaultBid: 0.45 } },
    ]);
    expect(outcome.replayed).to.equal(false);
    expect(outcome.actions.map((a) => [a.status, a.receipt?.status, a.value])).to.deep.equal([
      ['applied', 'queued', 12.5],
      ['applied', 'queued', 0.45],
    ]);
    await t.w.h.projector.whenCaughtUp();
    const id = outcome.actions[0]!.receipt!.id!;
    const found = await getReceipt(t.w.h.db, [t.account.id], id);
    expect(found!.receipt.caused_by).to.deep.equal(caused_by);
    // the ad group's request carries the source listing, whose flag holds it too
    const adGroup = await getReceipt(t.w.h.db, [t.account.id], outcome.actions[1]!.receipt!.id!);
    expect(adGroup!.receipt.provider.sourceListingId).to.equal(t.listing.id);
    const [admitted] = await t.w.h.store.readStream(`mutation-${id}`);
    expect(admitted!.metadata).to.deep.include({
      correlation_id: t.event.eventId,
      causation_id: caused_by.run_id,
      actor: { kind: 'automation', id: caused_by.automation_id },
      account_id: t.account.id,
    });
  });

  it('live: a rerun of the same automation version, event and listing admits nothing twice, whatever it pushes', async () => {
    const first = run();
    const before = await receiptsOf(t.listing.id);
    const once = await admit('live', first, [priceUpdate(t.listing, 13)]);
    await t.w.h.projector.whenCaughtUp();
    expect(await receiptsOf(t.listing.id)).to.equal(before + 1);
    // the runner crashed after admitting; the event runs again (a new run, a handler reading the clock)
    const again = await admit('live', { ...first, run_id: randomUUID() }, [priceUpdate(t.listing, 13.01)]);
    await t.w.h.projector.whenCaughtUp();
    expect(again.replayed).to.equal(true);
    expect(again.actions.map((a) => a.receipt?.id)).to.deep.equal(once.actions.map((a) => a.receipt?.id));
    expect(await receiptsOf(t.listing.id)).to.equal(before + 1);
    // a new code version is a new run
    const next = await admit('live', { ...first, automation_version: 2, run_id: randomUUID() }, [
      priceUpdate(t.listing, 13),
    ]);
    expect(next.replayed).to.equal(false);
    expect(next.actions[0]!.receipt!.id).to.not.equal(once.actions[0]!.receipt!.id);
  });

  it("drops a target that is not the account's and a campaign whose id is null, without a record", async () => {
    // the same seller connected by another user: the same SKU is that account's listing, not this one's
    const stranger = await t.w.h.connect('seller');
    await t.w.sync(listingsSync, stranger);
    const theirs = { ...t.listing, id: listingId(stranger, t.listing.marketplace.id, t.listing.sku) };
    expect(
      await t.w.h.db.withSchema('rm').table('listing_targets').where({ listing_id: theirs.id }).first(),
    ).to.not.equal(undefined);
    const head = await t.w.h.store.headPosition();
    const outcome = await admit('live', run(), [
      { target: { type: 'Campaign', id: null, name: 'not synced' }, action: 'update', payload: { state: 'PAUSED' } },
      { target: { ...t.listing.campaigns[0], id: randomUUID() }, action: 'update', payload: { state: 'PAUSED' } },
      priceUpdate(theirs, 10),
    ]);
    expect(outcome.actions).to.deep.equal([]);
    expect(outcome.dropped.map((d) => [d.index, d.reason])).to.deep.equal([
      [0, 'campaign not synced yet (its id is null)'],
      [1, 'not a target of the account'],
      [2, 'not a target of the account'],
    ]);
    expect(await t.w.h.store.headPosition(), 'nothing recorded').to.deep.equal(head);
  });

  it("refuses another of the account's listings on a listing-triggered run, as invalid output", async () => {
    const outcome = await admit('live', run(), [priceUpdate(t.other, 20), priceUpdate(t.listing, 20)]);
    expect(outcome.actions.map((a) => a.status)).to.deep.equal(['failed', 'applied']);
    expect(outcome.actions[0]!.error_message).to.contain('can update only its own listing');
    expect(outcome.actions[0]!.sku).to.equal(t.other.sku);
    // outside the Listing scope every listing of the account is a target
    const partner = await admit('dry', run({ listing_id: null }), [priceUpdate(t.other, 20)]);
    expect(partner.actions.map((a) => a.status)).to.deep.equal(['applied']);
  });

  it('invalid output fails with why: a flat price, a malformed push, an identical pending creation', async () => {
    const profile = (
      await buildContexts({
        db: t.w.h.db,
        store: t.w.h.store,
        account: t.account,
        streamType: 'ANY_OFFER_CHANGED',
        event: t.event.payload,
        now: t.w.now(),
      })
    )[0]!.context.advertisingProfiles as Json[];
    const creation = {
      target: profile[0],
      action: 'create_campaign',
      payload: {
        name: `launch ${randomUUID()}`,
        targetingType: 'AUTO',
        state: 'ENABLED',
        budget: { budget: 25, budgetType: 'DAILY' },
      },
    };
    const outcome = await admit('live', run(), [
      { target: t.listing, action: 'update', payload: { price: 10 } },
      'not a push',
      { target: t.listing, action: 'update' },
      creation,
      creation,
    ]);
    expect(outcome.actions.map((a) => [a.index, a.status])).to.deep.equal([
      [0, 'failed'],
      [1, 'failed'],
      [2, 'failed'],
      [3, 'applied'],
      [4, 'failed'],
    ]);
    expect(outcome.actions[0]!.error_message).to.match(/^invalid: context\.mutations\[0\]\.payload/);
    expect(outcome.actions[1]!.error_message).to.contain('is not an object');
    expect(outcome.actions[2]!.error_message).to.contain('payload must be an object');
    expect(outcome.actions[4]!.error_message).to.contain('identical create_campaign');
    expect(outcome.actions[3]!.value).to.equal(25);
    // while the first is pending, another run's identical creation is refused too
    const later = await admit('live', run(), [creation]);
    expect(later.actions.map((a) => a.status)).to.deep.equal(['failed']);
    expect(later.actions[0]!.error_message).to.contain('invalid');
  });

  it('a blocked source listing withholds every request of its runs (its ads changes too): blocked', async () => {
    await t.w.withhold({ type: 'Listing', id: t.listing.id }, true);
    const pushed = [
      priceUpdate(t.listing, 11),
      { target: t.listing.campaigns[0], action: 'update', payload: { state: 'ENABLED' } },
    ];
    for (const mode of ['dry', 'live'] as const) {
      const outcome = await admit(mode, run(), pushed);
      expect(
        outcome.actions.map((a) => [a.status, a.receipt?.status]),
        mode,
      ).to.deep.equal([
        ['blocked', 'blocked'],
        ['blocked', 'blocked'],
      ]);
      expect(outcome.actions[1]!.error_message).to.contain(`listing ${t.listing.id} is blocked`);
    }
    // another listing's run still changes that campaign
    const elsewhere = await admit('dry', run({ listing_id: t.other.id }), [pushed[1]]);
    expect(elsewhere.actions.map((a) => a.status)).to.deep.equal(['applied']);
    await t.w.withhold({ type: 'Listing', id: t.listing.id }, false);
  });

  it('a campaign with its Automation switch off: blocked, with the switch named', async () => {
    const campaign = t.other.campaigns[0];
    await t.w.withhold({ type: 'Campaign', id: campaign.id }, true);
    const outcome = await admit('live', run({ listing_id: t.other.id }), [
      { target: campaign, action: 'update', payload: { state: 'PAUSED' } },
    ]);
    expect(outcome.actions.map((a) => a.status)).to.deep.equal(['blocked']);
    expect(outcome.actions[0]!.error_message).to.contain('Automation switch off');
  });

  it('refuses an outbox over a per-run limit as a whole: 50 requests, 100,000 payload bytes, 500,000 output bytes', async () => {
    const head = await t.w.h.store.headPosition();
    const many = Array.from({ length: 51 }, () => priceUpdate(t.listing, 10));
    const heavyPayload = [
      { ...priceUpdate(t.listing, 10), payload: { productType: 'x'.repeat(100_001), patches: [] } },
    ];
    // the context's own objects as targets count as their type and id: fifty of them are no weight
    const heavyOutput = [{ ...priceUpdate(t.listing, 10), action: 'z'.repeat(500_001) }];
    const answers = await Promise.all(
      [many, heavyPayload, heavyOutput, { not: 'an array' }].map((p) => admit('live', run(), p)),
    );
    expect(answers.map((a) => [a.rejected !== null, a.actions.length, a.dropped.length])).to.deep.equal([
      [true, 0, 0],
      [true, 0, 0],
      [true, 0, 0],
      [true, 0, 0],
    ]);
    expect(answers[0]!.rejected).to.contain('at most 50');
    expect(answers[1]!.rejected).to.contain('at most 100000');
    expect(answers[2]!.rejected).to.contain('at most 500000');
    expect(await t.w.h.store.headPosition()).to.deep.equal(head);
    // exactly at the limit is fine
    const fifty = await admit('dry', run(), many.slice(0, 50));
    expect(fifty.rejected).to.equal(null);
    expect(fifty.actions).to.have.length(50);
  });
});
