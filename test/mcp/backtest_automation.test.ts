import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { recordMarketplaceEvent } from '../../src/commands/event/record.js';
import { completeSync, observePage } from '../../src/commands/observation/record.js';
import { setAdmissions } from '../../src/commands/admission/switch.js';
import { activateAutomation } from '../../src/commands/automation/activation.js';
import type { AutomationCall } from '../../src/commands/automation/context.js';
import { createAutomation } from '../../src/commands/automation/lifecycle.js';
import { STORE_LIMITS } from '../../src/domain/automation-store/limits.js';
import { readMessage } from '../../src/domain/event/message.js';
import { PageObserved } from '../../src/domain/observation/events.js';
import { listingId } from '../../src/domain/observation/ids.js';
import type { Position } from '../../src/eventstore/port.js';
import { loadAccount, type AccountView } from '../../src/projections/accounts/queries.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { admissionsPaused } from '../../src/projections/admission/queries.js';
import { listingRow } from '../../src/projections/observed/listings.js';
import { listingsMentioned } from '../../src/projections/observed/listings-search.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { eventFixture } from '../../src/runtime/contracts/index.js';
import { readModelAds } from '../../src/runtime/context/ads.js';
import { adsContext } from '../../src/runtime/context/advertising.js';
import { decimalString } from '../../src/runtime/context/money.js';
import { linkedAds } from '../../src/runtime/context/listing.js';
import { startLiveReactor, type LiveReactor } from '../../src/runtime/live/reactor.js';
import { createSandbox, type Sandbox } from '../../src/runtime/sandbox/index.js';
import { backtestQueue, backtestWorker, enqueueBacktest } from '../../src/runtime/backtest/jobs.js';
import {
  configureAlertsWebhook,
  START,
  startAutomationWorld,
  type AutomationWorld,
} from '../support/automation-world.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { cli } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

type Json = Record<string, any>;

// backtest_automation through MCP over HTTP with a backtest worker on BullMQ: a seller whose
// listing's competitor moves its price every day for 30 days (offer messages recorded with those
// event times) and whose own price the marketplace changed once on day 15 (a listings page
// observed then). A repricer is backtested over the 30 days; each run's context must show the
// listing as the log had it at that time, the backtest's own earlier would-be price included, and
// nothing may be admitted, sent, posted or written outside the backtest's own streams.

const DAY = 86_400_000;
const DAYS = 30;
const THROWS_ON = 20;

/** Sets every listing it reached to 19.99. */
const LIVE_REPRICER = `
function handle(event, context) {
  context.mutations.push({ target: context.listing, action: 'update', payload: { productType: 'PRODUCT',
    patches: [{ op: 'merge', path: '/attributes/purchasable_offer', value: [{
      marketplace_id: context.listing.marketplace.id, currency: context.listing.currencyCode, audience: 'ALL',
      our_price: [{ schedule: [{ value_with_tax: 19.99 }] }] }] }] } });
}`;

/** Logs what the context showed, undercuts the rival by a cent, posts, counts its runs in the store. */
const REPRICER = `
function handle(event, context) {
  const note = event.Payload.AnyOfferChangedNotification;
  const rival = note.Offers.find((o) => o.SellerId !== note.SellerId).ListingPrice.Amount;
  const n = context.store.get('n') ?? 0;
  console.log('price=' + context.listing.price + ' n=' + n + ' receipts=' + context.listing.mutations.length);
  if (event.Payload.AnyOfferChangedNotification.OfferChangeTrigger.OfferChangeType === 'Throw') throw new Error('asked to');
  context.store.set('n', n + 1);
  const price = Math.round((rival - 0.01) * 100) / 100;
  context.mutations.push({ target: context.listing, action: 'update', payload: { productType: 'PRODUCT',
    patches: [{ op: 'merge', path: '/attributes/purchasable_offer', value: [{
      marketplace_id: context.listing.marketplace.id, currency: context.listing.currencyCode, audience: 'ALL',
      our_price: [{ schedule: [{ value_with_tax: price }] }] }] }] } });
  context.webhooks.alerts.post({ sku: context.listing.sku, price });
}`;

interface Serving {
  /** the Redis prefix its backtest queue lives under: a CLI given it enqueues for its worker */
  prefix: string;
  mcp: McpServing;
  client: Client;
  sandbox: Sandbox;
  /** calls backtest_automation, expecting no error */
  ok(args: Json): Promise<Json>;
  /** polls the backtest until it ended */
  ended(backtest_id: string): Promise<Json>;
  close(): Promise<void>;
}

/** MCP over HTTP for the user, with a backtest worker on BullMQ of its own. */
async function serveBacktests(w: AutomationWorld, user: string): Promise<Serving> {
  const prefix = `${process.env.REDIS_PREFIX}:backtest-${randomUUID().slice(0, 8)}`;
  const sandbox = createSandbox({ runners: 2, storeLimits: STORE_LIMITS });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const queue = backtestQueue(redis, prefix);
  const worker = backtestWorker({
    connection: redis,
    prefix,
    db: w.h.db,
    ctx: { store: w.h.store, metadata: { actor: { kind: 'worker', id: 'backtests' } } },
    sandbox,
    logger: pino({ level: 'silent' }),
    cancelCheckMs: 50,
  });
  const mcp = await serveMcp(w.h.db, () => w.now(), randomUUID(), {
    sandbox,
    backtests: { enqueue: (id) => enqueueBacktest(queue, id) },
  });
  const client = await mcp.clientFor(user);
  const ok = async (args: Json) => {
    const res = await call(client, 'backtest_automation', args);
    expect(res.isError, JSON.stringify(res.structuredContent)).to.not.equal(true);
    return res.structuredContent as Json;
  };
  return {
    prefix,
    mcp,
    client,
    sandbox,
    ok,
    async ended(backtest_id) {
      const deadline = Date.now() + 300_000;
      for (;;) {
        const answer = await ok({ backtest_id });
        if (['completed', 'cancelled', 'failed'].includes(answer.status)) return answer;
        if (Date.now() > deadline) throw new Error(`backtest ${backtest_id} still ${answer.status}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async close() {
      await mcp.close();
      await worker.close();
      await queue.close();
      await sandbox.close();
      await redis.quit();
    },
  };
}

describe('backtest_automation over MCP', function () {
  this.timeout(600_000);
  const user = randomUUID();
  let w: AutomationWorld;
  let serving: Serving;
  let mcp: McpServing;
  let client: Client;
  let ok: Serving['ok'];
  let ended: Serving['ended'];
  let receiver: Receiver;
  let account: AccountView;
  const listing = {} as { sku: string; asin: string; marketplace: string; id: string; p0: number; p15: number };
  /** the rival's price on each day (major units) */
  const rival = (d: number) => Math.round((listing.p0 + 5 - d * 0.25) * 100) / 100;
  const eventAt = (d: number) => new Date(START + 2 * 3_600_000 + d * DAY + 3_600_000);

  before(async () => {
    w = await startAutomationWorld({
      deals: false,
      user,
      projections: [automationsProjection, automationRunsProjection, automationStoreProjection, webhooksProjection],
    });
    account = (await loadAccount(w.h.db, w.account))!;
    serving = await serveBacktests(w, user);
    ({ client, mcp, ok, ended } = serving);
    receiver = await startReceiver();
    await configureAlertsWebhook(w, user, receiver.url);
    // a listing with a price whose ASIN no other SKU of its marketplace has
    const [row] = await w.h.db
      .withSchema('rm')
      .table('listing_current as c')
      .where('c.account_id', w.account)
      .whereNotNull('c.asin')
      .where('c.status', 'BUYABLE')
      .whereRaw(
        `(select count(*) from rm.listing_current o where o.account_id = c.account_id and o.marketplace_id = c.marketplace_id and o.asin = c.asin) = 1`,
      )
      .whereRaw(
        `exists (select 1 from rm.listings l where (l.account_id, l.scope, l.page, l.row) = (c.account_id, c.scope, c.page, c.row) and l.price is not null and l.currency = 'USD')`,
      )
      .orderBy(['c.marketplace_id', 'c.sku'])
      .select('c.sku', 'c.asin', 'c.marketplace_id');
    Object.assign(listing, {
      sku: row.sku,
      asin: row.asin,
      marketplace: row.marketplace_id,
      id: listingId(w.account, row.marketplace_id, row.sku),
    });
    // the marketplace changes the listing's price on its own on day 15: a listings page observed then
    await observeListing(new Date(START + 2 * 3_600_000 + 15 * DAY + 1_800_000), (item) => {
      listing.p0 = Number(listingRow(item, listing.marketplace)!.price) / 100;
      listing.p15 = Math.round((listing.p0 + 3) * 100) / 100;
      setPrice(item, listing.marketplace, listing.p15);
      expect(Number(listingRow(item, listing.marketplace)!.price)).to.equal(Math.round(listing.p15 * 100));
    });
    // a rival moving its price each day, and on one day a message the repricer throws on
    for (let d = 0; d < DAYS; d++) await recordOffer(d);
    w.h.clock.ms = START + DAYS * DAY + 3 * 3_600_000;
    await w.h.projector.whenCaughtUp();
  });
  after(async () => {
    await serving?.close();
    await receiver?.close();
    await w?.close();
  });

  /** Where a row is recorded: the dataset, the scope, and which of a page's rows it is. */
  interface RowAt {
    dataset: string;
    scope: string;
    matches(row: Json): boolean;
  }
  const skuRow = (dataset: string, sku: string, marketplace: string): RowAt => ({
    dataset,
    scope: marketplace,
    matches: (r) => (dataset === 'listings' ? r.sku : r.sellerSku) === sku,
  });

  /** The page of the log that last held the row. */
  async function pageHolding(at: RowAt) {
    let found: ReturnType<typeof PageObserved.parse> | null = null;
    let after: Position | null = null;
    for (;;) {
      const read = await w.h.store.readAllOfTypes({
        after,
        types: ['PageObserved'],
        filter: { field: 'dataset', values: [at.dataset] },
        limit: 500,
      });
      for (const e of read.events) {
        const page = PageObserved.parse(e.data);
        if (page.account_id === w.account && page.scope === at.scope && page.rows.some((r) => at.matches(r as Json)))
          found = page;
      }
      after = read.through ?? after;
      if (read.end) break;
    }
    return found!;
  }

  /** Observes the page holding the row again at `at`, the row changed by `change`. */
  async function observeAgain(when: Date, at: RowAt, change: (row: Json) => void) {
    const page = await pageHolding(at);
    const rows = page.rows.map((raw) => structuredClone(raw) as Json);
    change(rows.find((r) => at.matches(r))!);
    await observePage(
      { store: w.h.store, metadata: { actor: { kind: 'worker', id: 'sync' } } },
      { account_id: w.account, dataset: at.dataset, scope: at.scope },
      page.page,
      rows,
      when,
    );
  }

  /** Observes the listings page holding the listing again at `at`, the listing's item changed by `change`. */
  const observeListing = (at: Date, change: (item: Json) => void) =>
    observeAgain(at, skuRow('listings', listing.sku, listing.marketplace), change);

  function setPrice(item: Json, marketplace: string, major: number) {
    for (const offer of item.attributes?.purchasable_offer ?? [])
      if ((offer.marketplace_id ?? marketplace) === marketplace && (offer.audience ?? 'ALL') === 'ALL')
        offer.our_price = [{ schedule: [{ value_with_tax: major }] }];
    for (const offer of item.offers ?? [])
      if (offer.marketplaceId === marketplace && offer.offerType === 'B2C') offer.price.amount = String(major);
  }

  async function recordOffer(d: number) {
    const at = eventAt(d).toISOString();
    const payload = structuredClone(eventFixture('ANY_OFFER_CHANGED')) as Json;
    const note = payload.Payload.AnyOfferChangedNotification;
    const seller = account.selling!.provider_id;
    payload.EventTime = at;
    note.SellerId = seller;
    Object.assign(note.OfferChangeTrigger, {
      MarketplaceId: listing.marketplace,
      ASIN: listing.asin,
      TimeOfOfferChange: at,
      OfferChangeType: d === THROWS_ON ? 'Throw' : 'External',
    });
    note.Offers[0].SellerId = seller;
    note.Offers[1].ListingPrice.Amount = rival(d);
    const received_at = new Date(w.h.clock.ms).toISOString();
    const kind = readMessage(payload, received_at);
    if ('refused' in kind) throw new Error(kind.refused);
    await recordMarketplaceEvent(w.h.store, {
      account_id: w.account,
      message_id: `backtest-offer-${d}-${randomUUID()}`,
      ...kind,
      occurred_at: at,
      received_at,
      payload,
    });
  }

  /** Records a selling message of a listing-item type naming the SKU, at day `d`'s event time. */
  async function recordListingMessage(type: string, d: number, target: { sku: string; marketplace: string }) {
    const payload = structuredClone(eventFixture(type)) as Json;
    const at = eventAt(d).toISOString();
    payload.EventTime = at;
    Object.assign(payload.Payload, {
      SellerId: account.selling!.provider_id,
      MarketplaceId: target.marketplace,
      Sku: target.sku,
    });
    const kind = readMessage(payload, at);
    if ('refused' in kind) throw new Error(kind.refused);
    await recordMarketplaceEvent(w.h.store, {
      account_id: w.account,
      message_id: `backtest-${type}-${d}-${randomUUID()}`,
      ...kind,
      occurred_at: at,
      received_at: at,
      payload,
    });
  }

  /** Records a Marketing Stream message at day `d`'s event time. */
  async function recordAdsMessage(payload: Json, d: number) {
    const at = eventAt(d).toISOString();
    const kind = readMessage(payload, at);
    if ('refused' in kind) throw new Error(kind.refused);
    await recordMarketplaceEvent(w.h.store, {
      account_id: w.account,
      message_id: `backtest-ads-${d}-${randomUUID()}`,
      ...kind,
      occurred_at: at,
      received_at: at,
      payload,
    });
  }

  /** Backtests the code over the last 30 days; answers its result. */
  async function backtest(code: string, stream_type: string): Promise<Json> {
    const started = await ok({ code, stream_type });
    const done = await ended(started.backtest_id);
    expect(done.status, done.error).to.equal('completed');
    expect(done.result.execution_errors).to.deep.equal([]);
    return done.result as Json;
  }

  it('replays 30 days with the context as the log had it, carries its own prices forward, and changes nothing', async () => {
    const head = await w.h.store.headPosition();
    const started = await ok({ code: REPRICER, stream_type: 'ANY_OFFER_CHANGED' });
    expect(started.status).to.equal('queued');
    expect(started.since).to.equal(new Date(w.now().getTime() - DAYS * DAY).toISOString());
    const done = await ended(started.backtest_id);
    expect(done.status, done.error).to.equal('completed');
    const result = done.result as Json;
    expect(result.events_in_window).to.equal(DAYS);
    expect(done.progress).to.deep.equal({ done: DAYS, total: DAYS });
    const runs = result.runs as Json[];
    expect(runs.map((r) => r.occurred_at)).to.deep.equal([...Array(DAYS).keys()].map((d) => eventAt(d).toISOString()));

    // run by run: the price the context showed is the log's as of then, or the backtest's own last would-be price
    let price = listing.p0;
    let n = 0;
    let receipts = 0;
    for (const [d, run] of runs.entries()) {
      if (d === 15) price = listing.p15; // the marketplace's own change replaces the would-be price
      expect(run.listing_id).to.equal(listing.id);
      expect(run.logs[0]?.message, `day ${d}`).to.equal(`price=${price} n=${n} receipts=${receipts}`);
      if (d === THROWS_ON) {
        expect(run.outcome).to.equal('error');
        expect(run.error.code).to.equal('execution_error');
        continue;
      }
      expect(run.outcome).to.equal('ok');
      expect(run.changes).to.deep.equal([
        {
          target: { type: 'Listing', id: listing.id },
          action: 'update',
          value: Math.round((rival(d) - 0.01) * 100) / 100,
        },
      ]);
      price = run.changes[0].value;
      n++;
      receipts = Math.min(receipts + 1, 10);
    }
    // the price the marketplace showed beside each would-be change: the log's, never the backtest's own
    const group = (result.changes as Json[])[0]!;
    expect(group.count).to.equal(DAYS - 1);
    expect(group.changes[0].marketplace_value).to.equal(listing.p0);
    expect(group.changes.find((c: Json) => c.at === eventAt(16).toISOString()).marketplace_value).to.equal(listing.p15);

    // the summary's counts are the runs' outcomes, and the series adds up to them
    const totals = result.totals as Json;
    const sum = (f: (r: Json) => number) => runs.reduce((s, r) => s + f(r), 0);
    expect(totals.runs).to.equal(runs.length);
    expect(totals.events_replayed).to.equal(DAYS);
    expect(totals.changes).to.equal(sum((r) => r.changes.length));
    expect(totals.execution_errors).to.equal(runs.filter((r) => r.error?.code === 'execution_error').length);
    expect(totals.execution_errors).to.equal(1);
    expect(totals.webhook_posts).to.equal(sum((r) => r.webhook_posts));
    expect(totals.webhook_posts).to.equal(DAYS - 1);
    expect(totals.blocked).to.equal(sum((r) => r.blocked));
    expect(totals.validation_failures).to.equal(sum((r) => r.validation_failures));
    expect(totals.missing_field_reads).to.equal(sum((r) => r.missing_field_reads));
    expect(result.series).to.have.length(DAYS);
    for (const key of Object.keys(totals))
      expect(
        (result.series as Json[]).reduce((s, day) => s + day[key], 0),
        key,
      ).to.equal(totals[key]);
    expect(result.webhook_posts).to.have.length(DAYS - 1);
    expect(result.execution_errors[0].event_id).to.equal(runs[THROWS_ON]!.event_id);

    // nothing admitted, sent, posted or written outside the backtest's own streams
    await w.h.projector.whenCaughtUp();
    const written = await w.h.store.readAll({ after: head, limit: 10_000 });
    expect(
      written.map((e) => e.streamId.replace(/-[^-]*$/, '')).filter((s) => !s.startsWith('backtest')),
    ).to.deep.equal([]);
    const receiptsOfListing = await w.h.db.withSchema('rm').table('mutation_receipts').where({ target_id: listing.id });
    expect(receiptsOfListing).to.deep.equal([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).to.deep.equal([]);
  });

  it('one at a time per user; cancel stops it and keeps what ran; a window outside retention is refused', async () => {
    // 200 ms a run over a month of events: seconds of work, so the second request and the cancel land while it runs
    const slow = `function handle(event, context) { const end = Date.now() + 200; while (Date.now() < end) {} }`;
    const first = await ok({ code: slow, stream_type: 'ANY_OFFER_CHANGED' });
    const second = await call(client, 'backtest_automation', { code: REPRICER, stream_type: 'ANY_OFFER_CHANGED' });
    expect(second.structuredContent.code).to.equal('busy');
    // under way it reads running, with its progress, before its first progress report is due
    let running = first;
    for (const deadline = Date.now() + 10_000; running.status === 'queued' && Date.now() < deadline;)
      running = await ok({ backtest_id: first.backtest_id });
    expect(running.status).to.equal('running');
    expect(running.progress.total).to.equal(DAYS);
    expect(running.progress.done).to.be.lessThan(DAYS);
    const cancelled = await ok({ backtest_id: first.backtest_id, cancel: true });
    expect(cancelled.cancel_requested).to.equal(true);
    const done = await ended(first.backtest_id);
    expect(done.status).to.equal('cancelled');
    // what ran is kept, and it stopped short of the window's events
    expect(done.result.totals.events_replayed).to.be.lessThan(done.result.events_in_window);
    const old = await call(client, 'backtest_automation', {
      code: REPRICER,
      stream_type: 'ANY_OFFER_CHANGED',
      since: new Date(w.now().getTime() - 40 * DAY).toISOString(),
      until: new Date(w.now().getTime() - 20 * DAY).toISOString(),
    });
    expect(old.structuredContent.code).to.equal('invalid_window');
    expect(old.structuredContent.detail).to.contain('retention');
    const other = await mcp.clientFor(randomUUID());
    const hidden = await call(other, 'backtest_automation', { backtest_id: first.backtest_id });
    expect(hidden.structuredContent.code).to.equal('not_found');
  });

  it("shows an FBA listing's inventory as the log's inventory pages had it at each event", async () => {
    const [fba] = await w.h.db
      .withSchema('rm')
      .table('fba_inventory as i')
      .join('listing_current as c', (j) =>
        j.on('c.account_id', 'i.account_id').andOn('c.marketplace_id', 'i.marketplace_id').andOn('c.sku', 'i.sku'),
      )
      .where('i.account_id', w.account)
      .whereNotNull('i.fulfillable_quantity')
      .orderBy(['i.marketplace_id', 'i.sku'])
      .select('i.sku', 'i.marketplace_id', 'i.fulfillable_quantity');
    const target = { sku: fba.sku as string, marketplace: fba.marketplace_id as string };
    const before = fba.fulfillable_quantity as number;
    // the inventory changes on day 10 (a page observed then), and again today (after the window)
    const inventoryRow = skuRow('fba_inventory', target.sku, target.marketplace);
    await observeAgain(new Date(START + 10 * DAY), inventoryRow, (s) => {
      s.inventoryDetails.fulfillableQuantity = before + 7;
    });
    await observeAgain(w.now(), inventoryRow, (s) => {
      s.inventoryDetails.fulfillableQuantity = before + 100;
    });
    for (const d of [5, 12]) await recordListingMessage('LISTINGS_ITEM_STATUS_CHANGE', d, target);
    const started = await ok({
      code: `function handle(event, context) { console.log('fulfillable=' + context.listing.data.fba.inventory.inventoryDetails.fulfillableQuantity); }`,
      stream_type: 'LISTINGS_ITEM_STATUS_CHANGE',
    });
    const done = await ended(started.backtest_id);
    expect(done.status, done.error).to.equal('completed');
    const runs = (done.result as Json).runs as Json[];
    expect(runs.map((r) => [r.occurred_at, r.logs[0]?.message])).to.deep.equal([
      [eventAt(5).toISOString(), `fulfillable=${before}`],
      [eventAt(12).toISOString(), `fulfillable=${before + 7}`],
    ]);
  });

  it('shows deals and advertising entities as the log had them, in listing and campaign contexts, its own bids carried forward', async () => {
    const [advertised] = await w.advertised();
    const target = { sku: advertised!.sku, marketplace: advertised!.marketplace_id };
    const [record] = await listingsMentioned(w.h.db, w.account, [
      { sku: target.sku, asin: null, marketplace_id: target.marketplace },
    ]);
    const days = [5, 11, 13];
    // what the read models answer for each event's time while nothing advertising was recorded since the sync
    const expected = new Map<number, Json>();
    for (const d of days)
      expected.set(
        d,
        await linkedAds(readModelAds(w.h.db, account, eventAt(d)), account, record!, Promise.resolve([])),
      );
    // something to fold: linked campaigns with reported figures in the window
    expect(expected.get(5)!.campaigns).to.not.deep.equal([]);
    for (const d of days)
      expect(
        [...expected.get(d)!.campaigns, ...expected.get(d)!.targets].some((e: Json) => e.metrics30.impressions > 0),
        `day ${d}`,
      ).to.equal(true);
    const positive = expected.get(5)!.targets[0] as Json;
    expect(positive, 'the advertised listing has a target').to.not.equal(undefined);
    const campaign = (expected.get(5)!.campaigns as Json[]).find((c) => c.id === positive.campaignId)!;
    // an hour of traffic on the campaign's keyword at each ads event's time, and the campaign context then
    const adsDays = [5, 7, 11];
    const traffic = (d: number) => ({
      ...(eventFixture('SP_TRAFFIC') as Json),
      idempotency_id: randomUUID(),
      marketplace_id: target.marketplace,
      campaign_id: campaign.data.campaignId,
      time_window_start: new Date(eventAt(d).getTime() - 3_600_000).toISOString(),
    });
    const sent = new Map(adsDays.map((d) => [d, traffic(d)]));
    const campaignThen = new Map<number, Json>();
    for (const d of adsDays)
      campaignThen.set(
        d,
        (await adsContext({ db: w.h.db, account, streamType: 'SP_TRAFFIC', event: sent.get(d)!, now: eventAt(d) }))!,
      );

    const keyword = 'keywordId' in positive.data;
    const idKey = keyword ? 'keywordId' : 'targetId';
    const bidRow = {
      dataset: keyword ? 'sp_keywords' : 'sp_targets',
      scope: String(positive.providerProfileId),
      matches: (r: Json) => String(r[idKey]) === String(positive.data[idKey]),
    };
    const bid = Number(positive.data.bid ?? 1);
    // the target's bid changes on day 10; today (after the window) the target is gone, another in its place
    await observeAgain(new Date(START + 10 * DAY), bidRow, (r) => (r.bid = bid + 0.5));
    await observeAgain(w.now(), bidRow, (r) => {
      r[idKey] = `${r[idKey]}0`;
      r.bid = bid + 5;
    });
    // the deals reports: first read on day 3 (one coupon), a second coupon on day 12, a third today
    const coupon = (id: string, from: number, to: number) => ({
      couponId: id,
      marketplaceId: target.marketplace,
      currencyCode: 'USD',
      startDateTime: new Date(START + from * DAY).toISOString(),
      endDateTime: new Date(START + to * DAY).toISOString(),
      customerSegment: 'ALL',
      clips: 0,
      redemptions: 0,
      totalDiscount: 0,
      budgetSpent: 0,
      budgetPercentageUsed: 0,
      asins: [{ asin: record!.asin }],
    });
    const sync = { store: w.h.store, metadata: { actor: { kind: 'worker' as const, id: 'sync' } } };
    const coupons = { account_id: w.account, dataset: 'coupon_performance', scope: target.marketplace };
    const promotions = { ...coupons, dataset: 'promotion_performance' };
    await observePage(sync, coupons, 0, [coupon('A', -5, 40)], new Date(START + 3 * DAY));
    await completeSync(sync, coupons, 1, new Date(START + 3 * DAY));
    await completeSync(sync, promotions, 0, new Date(START + 3 * DAY));
    await observePage(sync, coupons, 0, [coupon('A', -5, 40), coupon('B', 12, 20)], new Date(START + 12 * DAY));
    await observePage(sync, coupons, 0, [coupon('C', 0, 40)], w.now());
    for (const d of days) await recordListingMessage('LISTINGS_ITEM_ISSUES_CHANGE', d, target);
    for (const d of adsDays) await recordAdsMessage(sent.get(d)!, d);

    /** the context's entities with the target's bid as `major` */
    const withBid = (entities: Json[], major: number) =>
      entities.map((e) =>
        e.id === positive.id ? { ...e, bid: decimalString(major), data: { ...e.data, bid: major } } : e,
      );

    // the listing's context: linked entities with the bid the log had, and the deals then
    const listingRun = (
      await backtest(
        `function handle(event, context) {
        const l = context.listing;
        context.webhooks.alerts.post({ ads: { campaigns: l.campaigns, adGroups: l.adGroups, ads: l.ads, targets: l.targets,
          negativeTargets: l.negativeTargets, keywords: l.keywords }, deals: l.deals, dealsReportedAt: l.dealsReportedAt });
      }`,
        'LISTINGS_ITEM_ISSUES_CHANGE',
      )
    ).webhook_posts as Json[];
    expect(listingRun.map((p) => p.at)).to.deep.equal(days.map((d) => eventAt(d).toISOString()));
    for (const [i, d] of days.entries()) {
      const shown = listingRun[i]!.payload as Json;
      const then = expected.get(d)!;
      const logged = d > 10 ? bid + 0.5 : bid;
      expect(shown.ads, `day ${d}`).to.deep.equal({
        ...then,
        targets: withBid(then.targets, logged),
        keywords: withBid(then.keywords, logged),
      });
      expect(shown.dealsReportedAt).to.equal(new Date(START + 3 * DAY).toISOString());
      expect(
        shown.deals.map((x: Json) => [x.couponId, x.kind]),
        `day ${d}`,
      ).to.deep.equal(
        d < 12
          ? [['A', 'coupon']]
          : [
              ['A', 'coupon'],
              ['B', 'coupon'],
            ],
      );
    }

    // the campaign's context on its traffic; each run raises the target's bid by 0.10 (would-be)
    const campaignResult = await backtest(
      `function handle(event, context) {
        context.webhooks.alerts.post(context);
        const t = context.campaign.targets.find((x) => x.id === ${JSON.stringify(positive.id)});
        context.mutations.push({ target: t, action: 'update', payload: { bid: { bid: Math.round((Number(t.bid) + 0.1) * 100) / 100 } } });
      }`,
      'SP_TRAFFIC',
    );
    const campaignRun = campaignResult.webhook_posts as Json[];
    expect(campaignRun.map((p) => p.at)).to.deep.equal(adsDays.map((d) => eventAt(d).toISOString()));
    // day 5: the log's bid; day 7: its own day-5 bid; day 11: the log moved on day 10, so the log's stands
    const bids = [bid, Math.round((bid + 0.1) * 100) / 100, bid + 0.5];
    // beside each would-be bid, the bid the log showed then (never its own)
    const group = (campaignResult.changes as Json[]).find((g) => g.target.id === positive.id)!;
    expect(group.changes.map((c: Json) => c.marketplace_value)).to.deep.equal([bid, bid, bid + 0.5]);
    for (const [i, d] of adsDays.entries()) {
      // what the sandbox adds to every context apart
      const { mutations: _m, webhooks: _w, store: _s, ...shown } = structuredClone(campaignRun[i]!.payload) as Json;
      const then = campaignThen.get(d)!;
      const own = shown.campaign.targets.find((x: Json) => x.id === positive.id);
      expect(own.mutations, `day ${d}`).to.have.length(i);
      for (const x of shown.campaign.targets) x.mutations = [];
      const covered = shown.campaign.ads.some((a: Json) => a.asin === record!.asin);
      expect(shown.campaign.deals.map((x: Json) => x.couponId)).to.deep.equal(covered ? ['A'] : []);
      expect(shown.campaign.dealsReportedAt).to.equal(new Date(START + 3 * DAY).toISOString());
      expect(shown, `day ${d}`).to.deep.equal({
        ...then,
        campaign: {
          ...then.campaign,
          targets: withBid(then.campaign.targets, bids[i]!),
          deals: shown.campaign.deals,
          dealsReportedAt: shown.campaign.dealsReportedAt,
        },
      });
    }
  });

  // last: it deletes the listing and pauses admissions today
  it("decides would-be admissions against the log as of the event: a listing deleted since and today's pause do not count", async () => {
    const asBefore = async () => {
      const started = await ok({ code: REPRICER, stream_type: 'ANY_OFFER_CHANGED' });
      const done = await ended(started.backtest_id);
      expect(done.status, done.error).to.equal('completed');
      const result = done.result as Json;
      expect(result.validation_failures).to.deep.equal([]);
      expect(result.totals.changes).to.equal(DAYS - 1);
      expect(result.runs.filter((r: Json) => r.changes.length === 1)).to.have.length(DAYS - 1);
    };
    // today the listing is deleted (a live admission refuses it), then admissions are paused too
    await observeListing(w.now(), (item) => {
      for (const summary of item.summaries ?? []) summary.status = ['DELETED'];
    });
    await w.h.projector.whenCaughtUp();
    const now = await listingsMentioned(w.h.db, w.account, [
      { sku: listing.sku, asin: null, marketplace_id: listing.marketplace },
    ]);
    expect(now.map((r) => r.status)).to.deep.equal(['DELETED']);
    await asBefore();
    const ops = { store: w.h.store, metadata: { actor: { kind: 'user' as const, id: 'operator' } } };
    const at = () => w.now().toISOString();
    await setAdmissions(ops, { type: 'DisableAdmissions', reason: 'maintenance', by: 'operator', at: at() });
    try {
      await w.h.projector.whenCaughtUp();
      expect((await admissionsPaused(w.h.db)).disabled).to.equal(true);
      await asBefore();
    } finally {
      await setAdmissions(ops, { type: 'EnableAdmissions', by: 'operator', at: at() });
    }
  });
});

// Beside it: a live automation that really ran (the live reactor, on events the simulator raised
// over a few hours) and a backtest of it, and of other code of the type, over the same events.
describe('backtest_automation beside live runs', function () {
  this.timeout(600_000);
  const user = randomUUID();
  let w: AutomationWorld;
  let serving: Serving;
  let reactor: LiveReactor | null = null;
  let automation: string;
  const events: string[] = [];

  before(async () => {
    w = await startAutomationWorld({
      deals: false,
      user,
      projections: [automationsProjection, automationRunsProjection, automationStoreProjection, webhooksProjection],
    });
    const account = (await loadAccount(w.h.db, w.account))!;
    serving = await serveBacktests(w, user);
    const call: AutomationCall = {
      store: w.h.store,
      userId: user,
      accounts: [account],
      at: w.now(),
      correlationId: randomUUID(),
      simulate: false,
    };
    automation = await createAutomation(call, {
      account,
      stream_type: 'ANY_OFFER_CHANGED',
      title: 'Reprice',
      code: LIVE_REPRICER,
      operation_dependencies: {},
    });
    await activateAutomation(call, automation);
    await w.h.projector.whenCaughtUp();
    reactor = await startLiveReactor({
      db: w.h.db,
      store: w.h.store,
      sandbox: serving.sandbox,
      logger: pino({ level: 'silent' }),
      // the live repricer posts nothing
      enqueueWebhookPosts: async () => ({ deliveries: [], skipped: [] }),
      name: `backtest-live-${randomUUID().slice(0, 8)}`,
      now: w.now,
    });
    const [first] = await w.advertised();
    for (let i = 0; i < 3; i++) {
      w.h.clock.ms += 3_600_000;
      events.push(
        (await w.raise('ANY_OFFER_CHANGED', { sku: first!.sku, marketplaceId: first!.marketplace_id })).eventId,
      );
    }
    // the live runs recorded, one per event and listing each reached
    for (let i = 0; ; i++) {
      await w.h.projector.whenCaughtUp();
      const recorded = await w.h.db.withSchema('rm').table('automation_runs').whereIn('event_id', events);
      if (new Set(recorded.map((r: Json) => r.event_id)).size === events.length) break;
      if (i > 600) throw new Error('the live runs were not recorded');
      await new Promise((r) => setTimeout(r, 50));
    }
    w.h.clock.ms += 3_600_000;
  });
  after(async () => {
    await reactor?.close();
    await serving?.close();
    await w?.close();
  });

  /** The live runs the read model recorded on the events, as the backtest shows them per run. */
  async function liveRecorded() {
    const runs = await w.h.db.withSchema('rm').table('automation_runs').whereIn('event_id', events).orderBy('at');
    const actions = await w.h.db
      .withSchema('rm')
      .table('automation_actions')
      .whereIn(
        'run_id',
        runs.map((r: Json) => r.run_id),
      )
      .where({ kind: 'mutation' })
      .orderBy('index');
    return runs.map((r: Json) => ({
      key: `${r.event_id}/${r.listing_id}`,
      automation_id: r.automation_id,
      automation_version: r.automation_version,
      error_message: r.error_message,
      actions: actions
        .filter((a: Json) => a.run_id === r.run_id)
        .map((a: Json) => ({
          status: a.status,
          action: a.action,
          target_type: a.target_type,
          target_id: a.target_id,
          value: a.value,
          error_message: a.error_message,
        })),
    }));
  }

  it('the CLI starts a backtest of the saved automation, which a worker runs, and shows it to its user only', async () => {
    // the operator's clock is the machine's: the default window (the last 30 days) has none of this world's events
    const env = { REDIS_PREFIX: serving.prefix };
    const started = JSON.parse(await cli(['backtests', 'start', '--user', user, '--automation', automation], env));
    expect(started).to.include({ status: 'queued', automation_id: automation, stream_type: 'ANY_OFFER_CHANGED' });
    const done = await serving.ended(started.backtest_id);
    expect(done.status, done.error).to.equal('completed');
    const show = (who: string) => cli(['backtests', 'show', '--user', who, '--backtest', started.backtest_id], env);
    const shown = JSON.parse(await show(user));
    expect(shown).to.include({ backtest_id: started.backtest_id, status: 'completed' });
    expect(shown.totals).to.deep.equal(done.result.totals);
    const refused = await show(randomUUID()).then(
      () => 'shown',
      (err: Error) => err.message,
    );
    expect(refused).to.contain('not_found');
  });

  for (const [what, args] of [
    ['the same automation', () => ({ automation_id: automation })],
    [
      'other code of the type',
      () => ({ code: LIVE_REPRICER.replace('19.99', '18.99'), stream_type: 'ANY_OFFER_CHANGED' }),
    ],
  ] as const)
    it(`shows what the live automation did beside each run of ${what}`, async () => {
      const live = await liveRecorded();
      expect(live.length).to.be.at.least(events.length);
      expect(live.every((l) => l.actions.length === 1 && l.actions[0]!.status === 'applied')).to.equal(true);
      const started = await serving.ok(args());
      const done = await serving.ended(started.backtest_id);
      expect(done.status, done.error).to.equal('completed');
      const result = done.result as Json;
      const runs = result.runs as Json[];
      expect(runs.map((r) => `${r.event_id}/${r.listing_id}`)).to.have.members(live.map((l) => l.key));
      for (const run of runs)
        expect(run.live, run.event_id).to.deep.equal(
          live.filter((l) => l.key === `${run.event_id}/${run.listing_id}`).map(({ key: _, ...l }) => l),
        );
      expect(result.totals.live_runs).to.equal(live.length);
      expect(result.totals.live_changes).to.equal(live.reduce((n, l) => n + l.actions.length, 0));
      for (const day of result.series as Json[])
        expect(day.live_runs).to.equal(
          runs.filter((r) => r.occurred_at.startsWith(day.day)).reduce((n, r) => n + r.live.length, 0),
        );
    });
});
