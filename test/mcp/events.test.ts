import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Webhook } from 'standardwebhooks';
import { marketplaceEventStream } from '../../src/commands/event/record.js';
import { pruneExpiredEvents } from '../../src/commands/event/prune.js';
import { BATCH_CONTENT_TYPE, deliverySecret } from '../../src/domain/event/delivery.js';
import { listingId } from '../../src/domain/observation/ids.js';
import { newId } from '../../src/domain/shared/ids.js';
import type { SimListing } from '../../src/marketplace/simulator/index.js';
import { VERSIONS, type SellingType } from '../../src/marketplace/simulator/events/types.js';
import { eventsProjection } from '../../src/projections/events/projection.js';
import { adsProjection } from '../../src/projections/observed/ads.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { clientsFor } from '../support/marketplace.js';
import { startHarness, type Harness } from '../support/observed.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import {
  assertApplyTwiceSameResult,
  assertBatchEqualsOneByOne,
  assertRebuildEqualsLive,
} from '../support/projections.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

// Marketplace events end to end: the simulator pushes signed messages over HTTP to the service's
// ingestion endpoint, the event store records each once, the projector builds the events read
// model, and list_events / get_event read it through the MCP client.

const SECRET = 'test-ingestion-secret';
const SELLER = 'Atzr|demo-seller';
const US = 'ATVPDKIKX0DER';
const DAY_MS = 86_400_000;

type Row = Record<string, any>;

describe('marketplace events: ingestion, list_events and get_event', function () {
  this.timeout(120_000);
  let h: Harness;
  let mcp: McpServing;
  let user: string;
  let account: string;
  let client: Client;
  let sim: string;

  const ingestUrl = (base: string, id = account) => `${base}/ingest/${id}`;
  const live = (l: SimListing) => h.simulator.selling.listings.live(l);
  const usListings = () => [...h.simulator.catalog.listingsIn(US)].map(live).filter((l) => l.status !== 'DELETED');

  const raise = async (body: Record<string, unknown>) => {
    const answer = await fetch(`${sim}/_sim/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status, await answer.clone().text()).to.equal(202);
  };
  const deliveries = async () =>
    (await (await fetch(`${sim}/_sim/events/deliveries`)).json()) as {
      pending: number;
      delivered: number;
      failed: number;
      deliveries: { id: string; attempts: number; state: string; lastStatus: number | null }[];
    };
  /** Waits until the sender has nothing pending and the projector has applied every append. */
  async function settled(): Promise<void> {
    for (let i = 0; i < 1_000 && (await deliveries()).pending > 0; i++) await new Promise((r) => setTimeout(r, 10));
    await h.projector.whenCaughtUp();
  }
  const list = async (args: Record<string, unknown> = {}) => {
    const result = await call(client, 'list_events', args);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(undefined);
    return result.structuredContent as { events: Row[]; total: number };
  };
  const errorOf = async (tool: string, args: Record<string, unknown>) => {
    const result = await call(client, tool, args);
    expect(result.isError, JSON.stringify(result.structuredContent)).to.equal(true);
    return result.structuredContent as { code: string; detail: string };
  };
  /** POSTs a body as the marketplace would, signed with the account's secret (or the one given). */
  const push = (
    body: string,
    options: { id?: string; at?: Date; secret?: string; to?: string; signature?: string; type?: string } = {},
  ) => {
    const id = options.id ?? randomUUID();
    const at = options.at ?? new Date();
    const secret = options.secret ?? deliverySecret(SECRET, account);
    return fetch(options.to ?? ingestUrl(mcp.base), {
      method: 'POST',
      headers: {
        'content-type': options.type ?? 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': options.signature ?? new Webhook(secret).sign(id, at, body),
      },
      body,
    });
  };
  const envelope = (type: SellingType, payload: object, eventTime: string) =>
    JSON.stringify({
      NotificationVersion: VERSIONS[type]?.notification ?? '1.0',
      NotificationType: type,
      PayloadVersion: VERSIONS[type]?.payload[0] ?? '1.0',
      EventTime: eventTime,
      Payload: payload,
      NotificationMetadata: { NotificationId: randomUUID() },
    });
  const streamOf = async (message_id: string) => h.store.readStream(marketplaceEventStream(account, message_id));

  before(async () => {
    h = await startHarness([listingsProjection, adsProjection, eventsProjection], [], Date.now());
    sim = h.simulator.endpoints().sellingApiUrl.replace(/\/+$/, '');
    user = newId();
    account = await h.connect('seller', user);
    await h.run(listingsSync, account, SELLER);
    mcp = await serveMcp(h.db, () => new Date(h.clock.ms), newId(), { ingestionSecret: SECRET });
    client = await mcp.clientFor(user);
    const { selling } = clientsFor(h.simulator);
    const destination = await selling.notifications.createDestination('service', {
      http: { url: ingestUrl(mcp.base), secret: deliverySecret(SECRET, account) },
    });
    for (const type of ['ANY_OFFER_CHANGED', 'ACCOUNT_STATUS_CHANGED', 'REPORT_PROCESSING_FINISHED'] as const)
      await selling.notifications.createSubscription(type, {
        payloadVersion: VERSIONS[type].payload[0]!,
        destinationId: destination.destinationId,
      });
  });
  after(async () => {
    await mcp?.close();
    await h?.close();
  });

  it("a competitor's price change (ANY_OFFER_CHANGED) on a listed SKU: one row naming the listing by ASIN, SKU and title; get_event gives the payload as sent", async () => {
    const withAsin = (asin: string) => usListings().filter((l) => l.asin === asin);
    const listing = usListings().find((l) => withAsin(l.asin).length === 1)!;
    await raise({ type: 'ANY_OFFER_CHANGED', sku: listing.sku, marketplaceId: US });
    await settled();
    const { events, total } = await list({ stream_type: 'ANY_OFFER_CHANGED' });
    expect(total).to.equal(1);
    const row = events[0]!;
    const named = { id: listingId(account, US, listing.sku), asin: listing.asin, sku: listing.sku, marketplace_id: US };
    expect(row).to.include({
      stream_type: 'ANY_OFFER_CHANGED',
      synthetic: false,
      account_id: account,
      asin: listing.asin,
      sku: listing.sku,
      title: listing.title,
      marketplace_id: US,
      summary: `ANY_OFFER_CHANGED for ASIN ${listing.asin}, SKU ${listing.sku} (${listing.title}) in ${US}`,
    });
    expect(row.listings).to.deep.equal([{ ...named, title: listing.title }]);
    const got = await call(client, 'get_event', { event_id: row.id });
    const event = got.structuredContent as Row;
    expect(event).to.deep.include({ id: row.id, stream_type: 'ANY_OFFER_CHANGED', listings: row.listings });
    expect(event.payload.Payload.AnyOfferChangedNotification.OfferChangeTrigger).to.include({
      ASIN: listing.asin,
      MarketplaceId: US,
    });
    expect(event.occurred_at).to.equal(new Date(event.payload.EventTime).toISOString());

    // an ASIN two SKUs share: one event reaching both, counted once, sku null
    const shared = usListings().find((l) => withAsin(l.asin).length === 2)!;
    await raise({ type: 'ANY_OFFER_CHANGED', sku: shared.sku, marketplaceId: US });
    await settled();
    const both = await list({ asin: shared.asin });
    expect(both.total).to.equal(1);
    expect(both.events[0]).to.include({ asin: shared.asin, sku: null, marketplace_id: US });
    expect(both.events[0]!.listings.map((l: Row) => l.sku)).to.have.members(withAsin(shared.asin).map((l) => l.sku));
    for (const l of withAsin(shared.asin)) expect((await list({ sku: l.sku })).total, l.sku).to.equal(1);
  });

  it('a duplicate delivery (the simulator sends twice) and a replay of the same signed body are recorded once', async () => {
    await fetch(`${sim}/_sim/events/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'duplicate', type: 'ACCOUNT_STATUS_CHANGED' }),
    });
    await raise({ type: 'ACCOUNT_STATUS_CHANGED' });
    await settled();
    const sent = (await deliveries()).deliveries.filter((d) => d.state === 'delivered');
    const twice = sent.filter((d) => sent.filter((x) => x.id === d.id).length === 2);
    expect(twice, 'the simulator delivered one message twice').to.have.length(2);
    expect(await streamOf(twice[0]!.id)).to.have.length(1);
    expect((await list({ stream_type: 'ACCOUNT_STATUS_CHANGED' })).total).to.equal(1);

    const body = envelope(
      'LISTINGS_ITEM_STATUS_CHANGE',
      { SellerId: 'S', MarketplaceId: US, Sku: 'X' },
      new Date().toISOString(),
    );
    const id = randomUUID();
    const first = await push(body, { id });
    const again = await push(body, { id, at: new Date(Date.now() + 1_000) });
    expect([first.status, again.status]).to.deep.equal([200, 200]);
    expect([await first.json(), await again.json()]).to.deep.equal([{ outcome: 'recorded' }, { outcome: 'duplicate' }]);
    expect(await streamOf(id)).to.have.length(1);
  });

  it('refuses a bad signature and a stale timestamp (401), an unknown account (404) and an unknown type (400), recording nothing', async () => {
    const body = envelope('ORDER_CHANGE', {}, new Date().toISOString());
    const cases: Array<[string, Promise<Response>, number, string]> = [];
    const id = () => randomUUID();
    const ids = [id(), id(), id(), id(), id(), id()];
    cases.push(['tampered signature', push(body, { id: ids[0], signature: 'v1,AAAA' }), 401, ids[0]!]);
    cases.push([
      'another account’s secret',
      push(body, { id: ids[1], secret: deliverySecret(SECRET, newId()) }),
      401,
      ids[1]!,
    ]);
    cases.push([
      'signed 10 minutes ago',
      push(body, { id: ids[2], at: new Date(Date.now() - 10 * 60_000) }),
      401,
      ids[2]!,
    ]);
    const stranger = newId();
    cases.push([
      'unknown account',
      push(body, { id: ids[3], to: ingestUrl(mcp.base, stranger), secret: deliverySecret(SECRET, stranger) }),
      404,
      ids[3]!,
    ]);
    cases.push([
      'unknown notification type',
      push(envelope('NOT_A_TYPE' as SellingType, {}, 'x'), { id: ids[4] }),
      400,
      ids[4]!,
    ]);
    cases.push(['unknown dataset', push(JSON.stringify({ dataset_id: 'nope' }), { id: ids[5] }), 400, ids[5]!]);
    for (const [what, answer, status, messageId] of cases) {
      const response = await answer;
      expect(response.status, `${what}: ${await response.clone().text()}`).to.equal(status);
      expect((await response.json()) as Row, what)
        .to.have.property('detail')
        .that.is.a('string').and.not.empty;
      expect(await streamOf(messageId), what).to.deep.equal([]);
    }
    const missing = await fetch(ingestUrl(mcp.base), { method: 'POST', body });
    expect(missing.status, 'no signature headers').to.equal(401);
  });

  it('a batch push: its messages in one write, each answered recorded, duplicate or refused with its reason; a malformed batch (400) or a bad signature (401) records nothing', async () => {
    const batchPush = (messages: unknown, options: { signature?: string } = {}) =>
      push(JSON.stringify({ messages }), { ...options, id: `batch-${randomUUID()}`, type: BATCH_CONTENT_TYPE });
    const status = (sku: string) =>
      JSON.parse(
        envelope(
          'LISTINGS_ITEM_STATUS_CHANGE',
          { SellerId: 'S', MarketplaceId: US, Sku: sku },
          new Date().toISOString(),
        ),
      ) as unknown;
    const [a, b, c, known] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    expect((await push(JSON.stringify(status('K')), { id: known })).status).to.equal(200);
    const before = await h.store.headPosition();

    for (const [what, messages, detail] of [
      ['no messages array', { a: 1 }, /messages/],
      ['an empty batch', [], /1 to 100/],
      ['too many', Array.from({ length: 101 }, () => ({ id: randomUUID(), body: status('X') })), /not 101/],
      ['an entry that is no object', [{ id: a, body: status('A') }, 'x'], /messages\[1\]/],
    ] as const) {
      const answer = await batchPush(messages);
      expect(answer.status, what).to.equal(400);
      expect(await answer.json(), what)
        .to.include({ error: 'invalid_batch' })
        .and.have.property('detail')
        .that.matches(detail);
    }
    const forged = await batchPush([{ id: a, body: status('A') }], { signature: 'v1,AAAA' });
    expect(forged.status).to.equal(401);
    expect(await streamOf(a), 'nothing of a refused batch is recorded').to.deep.equal([]);
    expect(await h.store.headPosition(), 'nor anything else').to.deep.equal(before);

    const answer = await batchPush([
      { id: a, body: status('A') },
      { id: known, body: status('K') },
      { id: 'not an id!', body: status('X') },
      { id: b, body: { dataset_id: 'nope' } },
      { id: c, body: status('C') },
      { id: a, body: status('A') },
    ]);
    expect(answer.status).to.equal(200);
    const { outcomes } = (await answer.json()) as { outcomes: Row[] };
    expect(outcomes.map((o) => o.outcome ?? o.error)).to.deep.equal([
      'recorded',
      'duplicate',
      'invalid_message',
      'unknown_type',
      'recorded',
      'duplicate',
    ]);
    expect(outcomes.map((o) => o.id)).to.deep.equal([a, known, 'not an id!', b, c, a]);
    expect(outcomes[2]!.detail).to.match(/not an id!/);
    expect(outcomes[3]!.detail).to.match(/nope/);
    for (const id of [a, c, known]) expect(await streamOf(id), id).to.have.length(1);
    expect(await streamOf(b)).to.deep.equal([]);
    const recorded = [await streamOf(a), await streamOf(c)].map((events) => events[0]!);
    expect(recorded[0]!.position.commit, 'one write: one transaction').to.equal(recorded[1]!.position.commit);
    await settled();
    const rows = (await list({ stream_type: 'LISTINGS_ITEM_STATUS_CHANGE', sku: 'A' })).events;
    expect(rows, 'the read model shows the batch’s message once').to.have.length(1);
  });

  it('an order naming two SKUs is one event: sku null, both listings; internal types are listed too', async () => {
    const [a, b] = usListings();
    const at = new Date().toISOString();
    const order = envelope(
      'ORDER_CHANGE',
      {
        OrderChangeNotification: {
          AmazonOrderId: '111-0000000-0000001',
          Summary: {
            MarketplaceId: US,
            OrderItems: [{ SellerSKU: a!.sku }, { SellerSKU: b!.sku }],
          },
        },
      },
      at,
    );
    expect((await push(order)).status).to.equal(200);
    await raise({ type: 'REPORT_PROCESSING_FINISHED' });
    await settled();
    const orders = await list({ stream_type: 'ORDER_CHANGE' });
    expect(orders.total).to.equal(1);
    expect(orders.events[0]).to.include({ sku: null, marketplace_id: US });
    expect(orders.events[0]!.listings.map((l: Row) => l.sku)).to.have.members([a!.sku, b!.sku]);
    expect(orders.events[0]!.summary).to.match(/^ORDER_CHANGE for 2 listings: /);
    expect((await list({ sku: b!.sku, stream_type: 'ORDER_CHANGE' })).total).to.equal(1);
    const reports = await list({ stream_type: 'REPORT_PROCESSING_FINISHED' });
    expect(reports.total).to.equal(1);
    expect(reports.events[0]).to.include({ summary: 'REPORT_PROCESSING_FINISHED for the account', sku: null });
  });

  it('newest first by occurred_at, total before limit; stream_type, asin, sku, marketplace_id filters; whole-UTC-day and instant windows', async () => {
    const day = '2026-02-03';
    const times = [
      '2026-02-02T23:59:59.999Z',
      `${day}T00:00:00.000Z`,
      `${day}T12:00:00.000Z`,
      `${day}T23:59:59.999Z`,
      '2026-02-04T00:00:00.000Z',
    ];
    const listing = usListings()[5]!;
    for (const t of times) {
      const body = envelope(
        'LISTINGS_ITEM_STATUS_CHANGE',
        { MarketplaceId: US, Asin: listing.asin, Sku: listing.sku },
        t,
      );
      expect((await push(body)).status).to.equal(200);
    }
    await settled();
    const all = await list({ sku: listing.sku, stream_type: 'LISTINGS_ITEM_STATUS_CHANGE' });
    expect(all.total).to.equal(5);
    expect(all.events.map((e) => e.occurred_at)).to.deep.equal([...times].reverse());
    const limited = await list({ sku: listing.sku, stream_type: 'LISTINGS_ITEM_STATUS_CHANGE', limit: 2 });
    expect(limited).to.deep.include({ total: 5 });
    expect(limited.events.map((e) => e.occurred_at)).to.deep.equal([times[4], times[3]]);
    const filter = { sku: listing.sku };
    const at = async (args: Record<string, unknown>) =>
      (await list({ ...filter, ...args })).events.map((e) => e.occurred_at).reverse();
    expect(await at({ since: day, until: day }), 'a bare date is the whole UTC day').to.deep.equal(times.slice(1, 4));
    expect(
      await at({ since: `${day}T12:00:00Z`, until: '2026-02-04T00:00:00Z' }),
      'until exclusive at an instant',
    ).to.deep.equal(times.slice(2, 4));
    expect(await at({ asin: listing.asin, marketplace_id: US, until: day })).to.deep.equal(times.slice(0, 4));
    expect((await list({ asin: listing.asin, marketplace_id: 'A1F83G8C2ARO7P', since: day })).total).to.equal(0);
    expect((await list({ sku: `${listing.sku}-other` })).total).to.equal(0);
    expect(await errorOf('list_events', { stream_type: 'NOT_A_TYPE' })).to.include({ code: 'unknown_stream_type' });
    expect(await errorOf('list_events', { since: '2026-02-30' })).to.include({ code: 'invalid_window' });
    expect(await errorOf('list_events', { since: day, until: '2026-02-02' })).to.include({ code: 'invalid_window' });
    expect(await errorOf('list_events', { limit: 101 })).to.include({ code: 'invalid' });
    expect((await list({ limit: 100 })).events.length).to.be.at.most(100);
    const everything = await list();
    expect(everything.events).to.have.length(Math.min(everything.total, 20));
  });

  it("get_event: an unknown id, a malformed one and another user's are event_not_found; list_events of another user is empty", async () => {
    const own = (await list({ limit: 1 })).events[0]!;
    for (const event_id of [randomUUID(), 'not-an-id']) {
      const refused = await errorOf('get_event', { event_id });
      expect(refused.code).to.equal('event_not_found');
      expect(refused.detail).to.contain(event_id);
    }
    const other = await mcp.clientFor(newId());
    const foreign = await call(other, 'get_event', { event_id: own.id });
    expect(foreign.structuredContent).to.include({ code: 'event_not_found' });
    expect((await call(other, 'list_events', {})).structuredContent).to.deep.equal({ events: [], total: 0 });
  });

  it('store down: the endpoint answers 503, the simulator retries, and the message is recorded once', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(proxy.port);
    const flaky = await serveMcp(h.db, () => new Date(), newId(), {
      ingestionSecret: SECRET,
      storeUrl: url.toString(),
    });
    try {
      const { selling } = clientsFor(h.simulator);
      const destination = await selling.notifications.createDestination('flaky', {
        http: { url: ingestUrl(flaky.base), secret: deliverySecret(SECRET, account) },
      });
      await selling.notifications.createSubscription('FEED_PROCESSING_FINISHED', {
        payloadVersion: VERSIONS.FEED_PROCESSING_FINISHED.payload[0]!,
        destinationId: destination.destinationId,
      });
      proxy.down();
      const lost = randomUUID();
      const batch = await push(
        JSON.stringify({
          messages: [{ id: lost, body: JSON.parse(envelope('ORDER_CHANGE', {}, new Date().toISOString())) }],
        }),
        { to: ingestUrl(flaky.base), id: `batch-${randomUUID()}`, type: BATCH_CONTENT_TYPE },
      );
      expect(batch.status, 'a batch the store cannot take: 503, so the sender retries it').to.equal(503);
      expect(await streamOf(lost)).to.deep.equal([]);
      await raise({ type: 'FEED_PROCESSING_FINISHED' });
      let record: { id: string; attempts: number; state: string; lastStatus: number | null } | undefined;
      for (let i = 0; i < 500 && !(record && record.attempts >= 1 && record.lastStatus === 503); i++) {
        await new Promise((r) => setTimeout(r, 10));
        record = (await deliveries()).deliveries.find((d) => d.state === 'pending');
      }
      expect(record, 'a refused attempt').to.include({ lastStatus: 503 });
      expect(await streamOf(record!.id)).to.deep.equal([]);
      proxy.up();
      await settled();
      const done = (await deliveries()).deliveries.find((d) => d.id === record!.id)!;
      expect(done.state).to.equal('delivered');
      expect(done.attempts).to.be.greaterThan(1);
      expect(await streamOf(record!.id)).to.have.length(1);
      expect((await list({ stream_type: 'FEED_PROCESSING_FINISHED' })).total).to.equal(1);
    } finally {
      await flaky.close();
      await proxy.close();
    }
  });

  it('synthetic rows: the answer to a listing push and the listing read back, from the receipt’s own events', async () => {
    const listing = usListings()[7]!;
    const receipt_id = randomUUID();
    const at = new Date().toISOString();
    const later = new Date(Date.now() + 60_000).toISOString();
    const reconciliation = {
      result: 'accepted',
      attempts: 1,
      checkedAt: later,
      nextAt: null,
      candidates: [],
      cause: 'reply lost',
    };
    await h.store.appendToStream(`mutation-${receipt_id}`, [
      {
        type: 'MutationAdmitted',
        data: {
          receipt_id,
          account_id: account,
          target: { type: 'Listing', id: listingId(account, US, listing.sku) },
          provider: { sellerId: 'S', sku: listing.sku, marketplaceId: US },
          action: 'update',
          payload: { price: 1999 },
          idempotency: null,
          created_at: at,
          blocked: null,
        },
      },
      {
        type: 'MutationSubmitted',
        data: {
          receipt_id,
          attempt: 1,
          http_status: 200,
          response: { status: 'ACCEPTED', submissionId: 'sub-1' },
          request_id: 'r-1',
          error: null,
          recorded_at: at,
          submission_id: 'sub-1',
          accepted: true,
          created: null,
        },
      },
      { type: 'MutationChangeConfirmed', data: { receipt_id, reconciliation, observed: { purchasable_offer: [] } } },
    ]);
    await h.projector.whenCaughtUp();
    const rows = (await list({ sku: listing.sku, since: at })).events.filter((e) => e.synthetic);
    expect(rows.map((r) => [r.stream_type, r.occurred_at, r.sku, r.title])).to.deep.equal([
      [null, later, listing.sku, listing.title],
      [null, at, listing.sku, listing.title],
    ]);
    expect(rows[0]!.summary).to.match(/^A listing read back for /);
    expect(rows[1]!.summary).to.match(/^The marketplace's answer to a listing push for /);
    const answer = (await call(client, 'get_event', { event_id: rows[1]!.id })).structuredContent as Row;
    expect(answer.payload).to.deep.include({
      kind: 'listing_push_answer',
      receipt_id,
      http_status: 200,
      accepted: true,
    });
  });

  it('the events projection: rebuilt equals live, applying its events twice changes nothing, and a batch equals one at a time', async () => {
    await assertRebuildEqualsLive(h.db, h.store, eventsProjection);
    const events = (await h.allEvents()).filter((e) => eventsProjection.handles.includes(e.type));
    await assertApplyTwiceSameResult(h.db, eventsProjection, events);
    // received messages and the listing receipts' synthetic rows, interleaved as the log has them
    expect(new Set(events.map((e) => e.type)).size).to.be.greaterThan(2);
    await assertBatchEqualsOneByOne(h.db, eventsProjection, events);
  });

  it('retention: messages received over a month before now leave the store and the read model; younger ones and synthetic rows stay', async () => {
    const before = await list({ limit: 100 });
    expect(before.total).to.be.greaterThan(0);
    const id = before.events.find((e) => !e.synthetic)!;
    const stream = (await h.db('rm.marketplace_events').where({ id: id.id }).first()).stream as string;
    expect(await h.store.readStream(stream)).to.have.length(1);
    // the run's database is shared: other files' receipts left synthetic rows (some received on
    // their own fixed clocks, days ago); synthetic rows go with their receipts (30 days after the
    // receipt's last answer, test/commands/retention.test.ts), never by this rule
    const messages = async () =>
      Number((await h.db('rm.marketplace_events').where({ synthetic: false }).count({ n: '*' }).first())!.n);
    const ours = before.events.filter((e) => e.synthetic).length;
    await pruneExpiredEvents(h.db, h.store, new Date(Date.now() + 27 * DAY_MS));
    expect((await list({ limit: 1 })).total, 'nothing of the last 27 days pruned').to.equal(before.total);
    expect(await h.store.readStream(stream)).to.have.length(1);
    const due = await messages();
    // 36 days: past a month from receipt, and past 35 days from the hour of any hourly metrics message
    const pruned = await pruneExpiredEvents(h.db, h.store, new Date(Date.now() + 36 * DAY_MS));
    expect(pruned).to.equal(due);
    expect(await messages()).to.equal(0);
    expect((await list()).total, 'the synthetic rows stay').to.equal(ours);
    expect(await h.store.readStream(stream)).to.deep.equal([]);
    expect((await call(client, 'get_event', { event_id: id.id })).structuredContent).to.include({
      code: 'event_not_found',
    });
  });
});
