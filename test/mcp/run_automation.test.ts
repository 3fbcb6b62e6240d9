import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { STORE_LIMITS } from '../../src/domain/automation-store/limits.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import { loadStoreSnapshot } from '../../src/projections/automation-store/queries.js';
import { automationsProjection } from '../../src/projections/automations/projection.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { eventFixture } from '../../src/runtime/contracts/index.js';
import { createSandbox, type Sandbox } from '../../src/runtime/sandbox/index.js';
import {
  configureAlertsWebhook,
  startAutomationWorld,
  type AutomationWorld,
  type RaisedEvent,
} from '../support/automation-world.js';
import { DEMO_DRY_RUNS_AT_ONCE } from '../../src/mcp/dry-runs.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

type Json = Record<string, any>;

// run_automation (spec 4.4, 7, 8) through the MCP client over HTTP, on the demo seller synced from
// the simulator: every refusal, the canned sample, replays and fabricated events, a repricing
// handler's price patch as the receipt it would get, logs, missing-field reads, the rate limit and
// one run at a time (Redis), and that a dry run appends, stores and posts nothing.

/** Undercuts the lowest competitor's landed price by a cent, within the listing's floor and ceiling. */
const REPRICE = `
function handle(event, context) {
  const note = event.Payload.AnyOfferChangedNotification;
  const listing = context.listing;
  const landed = (o) => o.ListingPrice.Amount + o.Shipping.Amount;
  const rivals = note.Offers.filter((o) => o.SellerId !== note.SellerId).map(landed);
  if (rivals.length === 0) return console.log('no competitor');
  let price = Math.round((Math.min(...rivals) - 0.01) * 100) / 100;
  if (listing.floor !== null) price = Math.max(price, listing.floor);
  if (listing.ceiling !== null) price = Math.min(price, listing.ceiling);
  console.log(listing.sku, listing.price, '->', price);
  context.mutations.push({
    target: listing,
    action: 'update',
    payload: {
      productType: 'PRODUCT',
      patches: [{ op: 'merge', path: '/attributes/purchasable_offer', value: [{
        marketplace_id: listing.marketplace.id, currency: listing.currencyCode, audience: 'ALL',
        our_price: [{ schedule: [{ value_with_tax: price }] }] }] }],
    },
  });
}`;

describe('run_automation over MCP', function () {
  this.timeout(300_000);
  const user = randomUUID();
  const prefix = `${process.env.REDIS_PREFIX}:run-automation-${randomUUID()}`;
  let w: AutomationWorld;
  let sandbox: Sandbox;
  let redis: Redis;
  let mcp: McpServing;
  let client: Client;
  let receiver: Receiver;
  let offer: RaisedEvent;
  let otherListing: string;
  let automationId: string;

  const run = (args: Json) => call(client, 'run_automation', args);
  const ok = async (args: Json, c: Client = client) => {
    const res = await call(c, 'run_automation', args);
    expect(res.isError, JSON.stringify(res.structuredContent)).to.not.equal(true);
    return res.structuredContent as { changes: Json[]; logs: Json[]; missing_field_reads: Json[] };
  };
  const refused = async (args: Json, code: string) => {
    const res = await run(args);
    expect(res.isError, `should be refused: ${JSON.stringify(args)}`).to.equal(true);
    expect(res.structuredContent.code, JSON.stringify(res.structuredContent)).to.equal(code);
    return res.structuredContent as Json;
  };
  const code = (body: string) => `function handle(event, context) {\n${body}\n}`;
  const logged = (body: string) => ({ code: code(body), stream_type: 'ANY_OFFER_CHANGED' });

  before(async () => {
    w = await startAutomationWorld({
      deals: false,
      user,
      projections: [automationsProjection, webhooksProjection, automationStoreProjection],
    });
    sandbox = createSandbox({ runners: 2, storeLimits: STORE_LIMITS });
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    mcp = await serveMcp(w.h.db, () => w.now(), randomUUID(), { sandbox, dryRuns: { redis, prefix } });
    client = await mcp.clientFor(user);
    receiver = await startReceiver();
    await configureAlertsWebhook(w, user, receiver.url);
    const [first, second] = await w.advertised();
    offer = await w.raise('ANY_OFFER_CHANGED', { sku: first!.sku, marketplaceId: first!.marketplace_id });
    const listings = await call(client, 'list_listings', { sku: second!.sku, marketplace_id: second!.marketplace_id });
    otherListing = listings.structuredContent.listings[0].id;
    const created = await call(client, 'create_automation', { stream_type: 'ANY_OFFER_CHANGED', code: REPRICE });
    automationId = created.structuredContent.automation_id;
    await w.h.projector.whenCaughtUp();
  });
  after(async () => {
    await mcp?.close();
    await sandbox?.close();
    await receiver?.close();
    await redis?.quit();
    await w?.close();
  });

  describe('refusals (spec 7)', () => {
    it('automation_or_code_required, ambiguous_target, stream_type_required, unknown_stream_type', async () => {
      await refused({}, 'automation_or_code_required');
      await refused({ automation_id: automationId, code: code('') }, 'ambiguous_target');
      const needs = await refused({ code: code('') }, 'stream_type_required');
      expect(needs.detail).to.match(/stream_type/);
      const unknown = await refused({ code: code(''), stream_type: 'PRICE_DROPPED' }, 'unknown_stream_type');
      expect(unknown.detail).to.contain('PRICE_DROPPED');
    });

    it('automation_not_found, invalid code (the syntax error), code_too_large, event_too_large', async () => {
      await refused({ automation_id: randomUUID() }, 'automation_not_found');
      const syntax = await refused(
        { code: 'function handle(event, context) { return ) }', stream_type: 'ANY_OFFER_CHANGED' },
        'invalid',
      );
      expect(syntax.detail).to.match(/line 1, column \d+/);
      await refused(
        { code: `${code('')}//${'x'.repeat(100_000)}`, stream_type: 'ANY_OFFER_CHANGED' },
        'code_too_large',
      );
      const big = await refused(
        { automation_id: automationId, sample_event: { Payload: { note: 'x'.repeat(100_000) } } },
        'event_too_large',
      );
      expect(big.detail).to.contain('over the limit of 100000 bytes');
    });

    it('event_not_found: an unknown or malformed id', async () => {
      const missing = await refused({ automation_id: automationId, event_id: randomUUID() }, 'event_not_found');
      expect(missing.detail).to.contain('1 month');
      await refused({ ...logged(''), event_id: 'not-an-id' }, 'event_not_found');
    });

    it('stream_type_mismatch: the event is of another type, or stream_type contradicts the automation', async () => {
      const status = await refused(
        { code: code(''), stream_type: 'LISTINGS_ITEM_STATUS_CHANGE', event_id: offer.eventId },
        'stream_type_mismatch',
      );
      expect(status.detail).to.contain('ANY_OFFER_CHANGED');
      await refused({ automation_id: automationId, stream_type: 'ORDER_CHANGE' }, 'stream_type_mismatch');
    });

    /** An order change naming two advertised listings by SKU, and those two. */
    async function twoListingsOrder() {
      const [a, b] = await w.advertised();
      const sample = eventFixture('ORDER_CHANGE')! as Json;
      const summary = sample.Payload.OrderChangeNotification.Summary;
      summary.MarketplaceId = a!.marketplace_id;
      const item = summary.OrderItems[0];
      summary.OrderItems = [
        { ...item, SellerSKU: a!.sku, ASIN: undefined },
        { ...item, SellerSKU: b!.sku, ASIN: undefined },
      ].map((i) => JSON.parse(JSON.stringify(i)));
      return { sample, a, b };
    }

    it('listing_required when the event reached several listings, naming them', async () => {
      const { sample, a, b } = await twoListingsOrder();
      const answer = await refused(
        { code: code(''), stream_type: 'ORDER_CHANGE', sample_event: sample },
        'listing_required',
      );
      expect(answer.listings.map((l: Json) => l.sku)).to.have.members([a!.sku, b!.sku]);
      const one = await ok({
        code: code('console.log(context.listing.sku)'),
        stream_type: 'ORDER_CHANGE',
        sample_event: sample,
        listing_id: answer.listings[1].listing_id,
      });
      expect(one.logs).to.deep.equal([{ level: 'log', message: answer.listings[1].sku }]);
    });

    it('event_not_replayable: a listing the event did not reach; invalid: a malformed listing id', async () => {
      const answer = await refused(
        { automation_id: automationId, event_id: offer.eventId, listing_id: otherListing },
        'event_not_replayable',
      );
      expect(answer.detail).to.contain(otherListing);
      await refused({ automation_id: automationId, listing_id: 'DESK-1' }, 'invalid');
    });

    it('invalid: a fabricated event naming a marketplace the account has not connected; both event inputs', async () => {
      const sample = eventFixture('ANY_OFFER_CHANGED')! as Json;
      sample.Payload.AnyOfferChangedNotification.OfferChangeTrigger.MarketplaceId = 'A0NOTCONNECTED';
      const answer = await refused({ automation_id: automationId, sample_event: sample }, 'invalid');
      expect(answer.detail).to.contain("'A0NOTCONNECTED' is not a connected marketplace");
      await refused({ automation_id: automationId, sample_event: sample, event_id: offer.eventId }, 'invalid');
    });

    it('execution_error: a throw, with its message and the logs written before', async () => {
      const answer = await refused(
        logged("console.log('before'); throw new TypeError('no price');"),
        'execution_error',
      );
      expect(answer.message).to.match(/^TypeError: no price \(line 2, column \d+\)$/);
      expect(answer.logs).to.deep.equal([{ level: 'log', message: 'before' }]);
    });

    it('busy while one of the caller’s runs is running', async () => {
      const slow = run(logged('const t = Date.now(); while (Date.now() - t < 1500) {}'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const answer = await refused(logged(''), 'busy');
      expect(answer.retry_after_seconds).to.be.a('number');
      // the slot is asked for beside the contexts' reads: its refusal still answers first
      const { sample } = await twoListingsOrder();
      await refused({ code: code(''), stream_type: 'ORDER_CHANGE', sample_event: sample }, 'busy');
      expect((await slow).isError).to.not.equal(true);
      await ok(logged(''));
    });
  });

  it('replays a real offer change: the repricing handler’s price patch as the receipt it would get', async () => {
    const note = (offer.payload as Json).Payload.AnyOfferChangedNotification;
    const rivals = note.Offers.filter((o: Json) => o.SellerId !== note.SellerId);
    expect(rivals, 'the simulator raised an offer change with competitors').to.not.be.empty;
    const answer = await ok({ automation_id: automationId, event_id: offer.eventId });
    expect(answer.changes).to.have.length(1);
    const [change] = answer.changes;
    expect(change!.status).to.equal('applied');
    expect(change!.receipt.id).to.equal(null);
    expect(change!.receipt.status).to.equal('queued');
    expect(change!.receipt.target_type).to.equal('Listing');
    const logged = answer.logs[0]!.message.split(' ');
    expect(logged[0]).to.equal(change!.sku);
    const price = Number(logged[3]);
    expect(change!.value).to.equal(price);
    expect(change!.receipt.payload.patches[0].value[0].our_price[0].schedule[0].value_with_tax).to.equal(price);
    expect(change!.receipt.payload.patches[0].value[0].marketplace_id).to.equal(change!.marketplace_id);
  });

  it('the canned sample names the account’s newest listing and a marketplace of its own', async () => {
    const newest = (await call(client, 'list_listings', { limit: 1 })).structuredContent.listings[0];
    const answer = await ok(
      logged(
        'console.log(context.listing.sku, context.listing.marketplace.id, event.Payload.AnyOfferChangedNotification.OfferChangeTrigger.ASIN)',
      ),
    );
    expect(answer.logs).to.deep.equal([
      { level: 'log', message: `${newest.sku} ${newest.marketplace_id} ${newest.asin}` },
    ]);
  });

  it('missing_field_reads name what the payload lacked and what it had', async () => {
    const answer = await ok(
      logged('const a = event.Payload.Nope; const b = event.Payload.AnyOfferChangedNotification.Summary.Foo;'),
    );
    expect(answer.missing_field_reads.map((r) => r.path)).to.deep.equal([
      'Payload.Nope',
      'Payload.AnyOfferChangedNotification.Summary.Foo',
    ]);
    expect(answer.missing_field_reads[0]!.available).to.include('AnyOfferChangedNotification');
  });

  it('logs: every console level, in order', async () => {
    const answer = await ok(
      logged("console.log('a', 1); console.info({ b: 2 }); console.warn('c'); console.error('d');"),
    );
    expect(answer.logs).to.deep.equal([
      { level: 'log', message: 'a 1' },
      { level: 'info', message: '{"b":2}' },
      { level: 'warn', message: 'c' },
      { level: 'error', message: 'd' },
    ]);
  });

  it('applies nothing: the log’s head, the store and the webhook receiver are unchanged', async () => {
    const head = await w.h.store.headPosition();
    const receipts = await w.h.db.withSchema('rm').table('mutation_receipts').count<{ n: string }[]>('* as n');
    const handler = `${REPRICE.replace(
      'function handle(event, context) {',
      `function handle(event, context) {
  context.store.set('lastSeen', event.Payload.AnyOfferChangedNotification.OfferChangeTrigger.ASIN);
  context.webhooks.alerts.post({ text: 'repricing' });
  console.log(Object.keys(context.webhooks).join(','), context.store.get('lastSeen') !== null);`,
    )}`;
    const answer = await ok({ code: handler, stream_type: 'ANY_OFFER_CHANGED', event_id: offer.eventId });
    expect(answer.logs[0]).to.deep.equal({ level: 'log', message: 'alerts true' });
    expect(answer.changes[0]!.status).to.equal('applied');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await w.h.projector.whenCaughtUp();
    expect(await w.h.store.headPosition()).to.deep.equal(head);
    expect(await w.h.db.withSchema('rm').table('mutation_receipts').count('* as n')).to.deep.equal(receipts);
    expect(await w.h.db.withSchema('rm').table('automation_store_values').count('* as n')).to.deep.equal([{ n: '0' }]);
    expect(await loadStoreSnapshot(w.h.db, automationId, w.now())).to.deep.equal({});
    expect(receiver.received).to.deep.equal([]);
  });

  it('rate_limited after 30 dry runs in 60 seconds, per caller, across api processes (Redis)', async () => {
    // two servers on one Redis prefix, as two api processes: their runs count together
    const other = await serveMcp(w.h.db, () => w.now(), randomUUID(), {
      sandbox,
      dryRuns: { redis, prefix: `${prefix}:limit` },
    });
    const mine = await serveMcp(w.h.db, () => w.now(), randomUUID(), {
      sandbox,
      dryRuns: { redis, prefix: `${prefix}:limit` },
    });
    try {
      const clients = [await other.clientFor(user), await mine.clientFor(user)];
      for (let i = 0; i < 30; i++) await ok(logged(''), clients[i % 2]);
      const res = await call(clients[0]!, 'run_automation', logged(''));
      expect(res.structuredContent.code).to.equal('rate_limited');
      expect(res.structuredContent.retry_after_seconds).to.be.within(1, 60);
      expect(res.structuredContent.detail).to.contain('30 dry runs per 60 seconds');
    } finally {
      await other.close();
      await mine.close();
    }
  });

  it(`on the demo, each visitor runs apart: one's run leaves the others free, up to ${DEMO_DRY_RUNS_AT_ONCE} at once`, async () => {
    // the demo acting as the test's user, behind a proxy on loopback that names each visitor
    const demo = await serveMcp(w.h.db, () => w.now(), user, {
      sandbox,
      dryRuns: { redis, prefix: `${prefix}:demo` },
      trustProxy: ['loopback'],
    });
    try {
      const visitor = (address: string) => demo.demoClient({ 'x-forwarded-for': address });
      const [first, second, third] = [
        await visitor('203.0.113.7'),
        await visitor('2001:db8:1:2::9'),
        await visitor('198.51.100.23'),
      ];
      const slow = logged('const t = Date.now(); while (Date.now() - t < 1500) {}');
      const running = call(first, 'run_automation', slow);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const own = await call(first, 'run_automation', logged(''));
      expect(own.structuredContent.code, 'the first visitor waits for its own run').to.equal('busy');
      const other = call(second, 'run_automation', slow);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const full = await call(third, 'run_automation', logged(''));
      expect(full.structuredContent.code).to.equal('busy');
      expect(full.structuredContent.detail).to.contain(`the demo's ${DEMO_DRY_RUNS_AT_ONCE} dry runs at once`);
      for (const answer of await Promise.all([running, other]))
        expect(answer.isError, JSON.stringify(answer.structuredContent)).to.not.equal(true);
      await ok(logged(''), third);
    } finally {
      await demo.close();
    }
  });
});
