import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { createReportsClient } from '../../src/marketplace/clients/reports.js';
import { MarketplaceError } from '../../src/marketplace/clients/index.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import {
  ADS_TYPES,
  DATASETS,
  EVENT_TYPES,
  SELLING_TYPES,
  VERSIONS,
  type EventType,
} from '../../src/marketplace/simulator/events/types.js';
import { sleep, startReceiver, until, type Received, type Receiver } from '../support/receiver.js';
import { BATCH_CONTENT_TYPE } from '../../src/domain/event/delivery.js';
import { clientsFor, QUICK_RETRY, rejectionOf, SELLING_TOKEN, startSimulator } from '../support/marketplace.js';

// The simulator's event side over HTTP: subscriptions made through the real clients, every
// one of the 24 types raised on demand and pushed to a receiver with a valid Standard Webhooks
// signature in its wire shape, the consequences of API calls, the market, and delivery faults.

const US = 'ATVPDKIKX0DER';
const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Key fields per type, from the published examples (selling) and the Marketing Stream data guide (ads). */
const SHAPES: Record<EventType, { at: Array<string | number>; keys: string[] }> = {
  ANY_OFFER_CHANGED: {
    at: ['Payload', 'AnyOfferChangedNotification'],
    keys: ['SellerId', 'OfferChangeTrigger', 'Summary', 'Offers'],
  },
  B2B_ANY_OFFER_CHANGED: {
    at: ['Payload', 'B2BAnyOfferChangedNotification', 'Summary'],
    keys: ['NumberOfOffers', 'BuyBoxEligibleOffers', 'LowestPrices', 'BuyBoxPrices'],
  },
  PRICING_HEALTH: {
    at: ['payload'],
    keys: ['issueType', 'sellerId', 'offerChangeTrigger', 'merchantOffer', 'summary'],
  },
  LISTINGS_ITEM_STATUS_CHANGE: {
    at: ['Payload'],
    keys: ['SellerId', 'MarketplaceId', 'Asin', 'Sku', 'CreatedDate', 'Status'],
  },
  LISTINGS_ITEM_ISSUES_CHANGE: {
    at: ['Payload'],
    keys: ['SellerId', 'MarketplaceId', 'Asin', 'Sku', 'Severities', 'EnforcementActions'],
  },
  LISTINGS_ITEM_MFN_QUANTITY_CHANGE: {
    at: ['Payload'],
    keys: ['SellerId', 'FulfillmentChannelCode', 'Sku', 'Quantity'],
  },
  ORDER_CHANGE: {
    at: ['Payload', 'OrderChangeNotification'],
    keys: ['NotificationLevel', 'SellerId', 'AmazonOrderId', 'OrderChangeType', 'OrderChangeTrigger', 'Summary'],
  },
  FBA_INVENTORY_AVAILABILITY_CHANGES: {
    at: ['Payload'],
    keys: ['SellerId', 'FNSKU', 'ASIN', 'SKU', 'FulfillmentInventoryByMarketplace'],
  },
  ACCOUNT_STATUS_CHANGED: {
    at: ['payload', 'accountStatusChangeNotification'],
    keys: ['previousAccountStatus', 'currentAccountStatus'],
  },
  FEED_PROCESSING_FINISHED: {
    at: ['payload', 'feedProcessingFinishedNotification'],
    keys: ['sellerId', 'accountId', 'feedId', 'feedType', 'processingStatus'],
  },
  FBA_OUTBOUND_SHIPMENT_STATUS: {
    at: ['Payload', 'FBAOutboundShipmentStatusNotification'],
    keys: ['SellerId', 'AmazonOrderId', 'AmazonShipmentId', 'ShipmentStatus'],
  },
  FULFILLMENT_ORDER_STATUS: {
    at: ['Payload', 'FulfillmentOrderStatusNotification'],
    keys: ['SellerId', 'EventType', 'StatusUpdatedDateTime', 'SellerFulfillmentOrderId', 'FulfillmentOrderStatus'],
  },
  ITEM_SALES_EVENT_CHANGE: {
    at: ['payload', 'itemSalesEventChanges', 0],
    keys: [
      'accountId',
      'marketplaceId',
      'currencyCode',
      'startTime',
      'endTime',
      'asin',
      'orderedUnits',
      'orderedRevenue',
    ],
  },
  DETAIL_PAGE_TRAFFIC_EVENT: {
    at: ['payload', 'detailPageTrafficEvents', 0],
    keys: ['accountId', 'marketplaceId', 'startTime', 'endTime', 'asin', 'glanceViews'],
  },
  BRANDED_ITEM_CONTENT_CHANGE: { at: ['Payload'], keys: ['MarketplaceId', 'BrandName', 'Asin', 'AttributesChanged'] },
  DATA_KIOSK_QUERY_PROCESSING_FINISHED: {
    at: ['payload'],
    keys: ['accountId', 'queryId', 'query', 'processingStatus'],
  },
  REPORT_PROCESSING_FINISHED: {
    at: ['payload', 'reportProcessingFinishedNotification'],
    keys: ['sellerId', 'accountId', 'reportId', 'reportType', 'processingStatus'],
  },
  BUDGET_USAGE: {
    at: [],
    keys: [
      'advertiserId',
      'marketplaceId',
      'dataset_id',
      'budgetScopeId',
      'budgetScopeType',
      'advertisingProductType',
      'budget',
      'budgetUsagePercentage',
      'usageUpdatedTimestamp',
    ],
  },
  SP_TRAFFIC: {
    at: [],
    keys: [
      'idempotency_id',
      'dataset_id',
      'marketplace_id',
      'currency',
      'advertiser_id',
      'campaign_id',
      'ad_group_id',
      'ad_id',
      'keyword_id',
      'placement',
      'time_window_start',
      'clicks',
      'impressions',
      'cost',
    ],
  },
  SP_CONVERSION: {
    at: [],
    keys: [
      'idempotency_id',
      'dataset_id',
      'campaign_id',
      'ad_id',
      'time_window_start',
      'attributed_conversions_1d',
      'attributed_sales_14d',
      'attributed_units_ordered_7d',
    ],
  },
  CAMPAIGN_CHANGE: {
    at: [],
    keys: ['datasetId', 'advertiserId', 'marketplaceId', 'campaignId', 'version', 'name', 'state', 'budgets', 'audit'],
  },
  AD_GROUP_CHANGE: {
    at: [],
    keys: ['datasetId', 'adGroupId', 'campaignId', 'name', 'state', 'bid', 'version', 'audit'],
  },
  AD_CHANGE: { at: [], keys: ['datasetId', 'adId', 'adGroupId', 'campaignId', 'state', 'creative', 'version'] },
  TARGET_CHANGE: {
    at: [],
    keys: ['datasetId', 'targetId', 'campaignId', 'targetType', 'state', 'targetDetails', 'version'],
  },
};

const PASCAL_ENVELOPE = [
  'NotificationVersion',
  'NotificationType',
  'PayloadVersion',
  'EventTime',
  'Payload',
  'NotificationMetadata',
];
const CAMEL_TYPES = [
  'PRICING_HEALTH',
  'ACCOUNT_STATUS_CHANGED',
  'FEED_PROCESSING_FINISHED',
  'ITEM_SALES_EVENT_CHANGE',
  'DETAIL_PAGE_TRAFFIC_EVENT',
  'DATA_KIOSK_QUERY_PROCESSING_FINISHED',
  'REPORT_PROCESSING_FINISHED',
];
const camel = (key: string) => key[0]!.toLowerCase() + key.slice(1);

/** The type a pushed body is, read the way an ingestion endpoint would. */
function typeOf(body: Record<string, unknown>): EventType {
  const selling = body.NotificationType ?? body.notificationType;
  if (typeof selling === 'string') return selling as EventType;
  const dataset = body.dataset_id ?? body.datasetId;
  return ADS_TYPES.find((t) => DATASETS[t] === dataset)!;
}

const at = (value: unknown, path: Array<string | number>): Record<string, unknown> =>
  path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], value) as Record<string, unknown>;

async function post(baseUrl: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
const raise = (baseUrl: string, body: Record<string, unknown>) => post(baseUrl, '/_sim/events', body);
interface DeliveryStats {
  raised: number;
  unsubscribed: number;
  queued: number;
  delivered: number;
  retried: number;
  failed: number;
  pending: number;
}
const deliveries = async (baseUrl: string) =>
  (await (await fetch(`${baseUrl}/_sim/events/deliveries`)).json()) as DeliveryStats;

describe('simulator events: subscriptions, signed push delivery of all 24 types, market and faults', function () {
  this.timeout(30_000);
  let simulator: Simulator;
  let baseUrl: string;
  let clients: ReturnType<typeof clientsFor>;
  let receiver: Receiver;
  let key: string;
  let profileId: string;
  // one message per push, so each test sees each message as its own push; 'batches' below sets more
  let batchMax = 1;

  beforeEach(async () => {
    ({ simulator, baseUrl } = await startSimulator({
      seed: 42,
      events: { streamConfirmMs: 50, delivery: { retryBaseMs: 20, attempts: 4, batchMax } },
    }));
    clients = clientsFor(simulator);
    receiver = await startReceiver();
    key = secret();
    profileId = String(simulator.seller.profiles[0]!.profileId);
  });
  afterEach(async () => {
    await simulator.close();
    await receiver.close();
  });

  /** A destination at the receiver and subscriptions to `types` (streams confirmed). */
  async function subscribe(types: readonly EventType[]): Promise<string> {
    const destination = await clients.selling.notifications.createDestination('receiver', {
      http: { url: receiver.url, secret: key },
    });
    for (const type of types) {
      if ((SELLING_TYPES as readonly string[]).includes(type)) {
        await clients.selling.notifications.createSubscription(type, {
          payloadVersion: VERSIONS[type as keyof typeof VERSIONS].payload[0]!,
          destinationId: destination.destinationId,
        });
        continue;
      }
      const { subscriptionId } = await clients.ads.streams.create(profileId, {
        clientRequestToken: randomUUID(),
        dataSetId: DATASETS[type as keyof typeof DATASETS],
        destination: { httpDestination: { url: receiver.url, secret: key } },
      });
      await activated(subscriptionId);
    }
    return destination.destinationId;
  }

  async function activated(subscriptionId: string): Promise<void> {
    for (let i = 0; i < 100 && (await clients.ads.streams.get(profileId, subscriptionId)).status !== 'ACTIVE'; i++)
      await sleep(20);
  }

  /** Waits until the sender has nothing pending. */
  async function idle(): Promise<void> {
    for (let i = 0; i < 500 && (await deliveries(baseUrl)).pending > 0; i++) await sleep(10);
  }

  const bodies = () => receiver.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
  const verify = (r: Received) =>
    new Webhook(key).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });

  it('raises each of the 24 types on demand and pushes it, signed, in its wire shape', async () => {
    expect(EVENT_TYPES).to.have.length(24);
    await subscribe(EVENT_TYPES);
    for (const type of EVENT_TYPES) {
      const answer = await raise(baseUrl, { type });
      expect(answer.status, `${type}: ${await answer.clone().text()}`).to.equal(202);
    }
    await until(() => receiver.received.length >= 24);
    const byType = new Map(receiver.received.map((r) => [typeOf(JSON.parse(r.body) as Record<string, unknown>), r]));
    expect([...byType.keys()].sort()).to.deep.equal([...EVENT_TYPES].sort());
    for (const [type, r] of byType) {
      const body = JSON.parse(r.body) as Record<string, unknown>;
      expect(() => verify(r), `${type} signature`).not.to.throw();
      expect(r.headers['content-type']).to.equal('application/json');
      expect(Object.keys(at(body, SHAPES[type].at)), type).to.include.members(SHAPES[type].keys);
      if ((SELLING_TYPES as readonly string[]).includes(type)) {
        const envelope = CAMEL_TYPES.includes(type) ? PASCAL_ENVELOPE.map(camel) : PASCAL_ENVELOPE;
        expect(Object.keys(body), type).to.deep.equal(envelope);
        const metadata = body[envelope[5]!] as Record<string, string>;
        const id = metadata.NotificationId ?? metadata.notificationId;
        expect(r.headers['webhook-id'], `${type}: webhook-id is the NotificationId`).to.equal(id);
      } else if (type === 'SP_TRAFFIC' || type === 'SP_CONVERSION') {
        expect(r.headers['webhook-id']).to.equal(body.idempotency_id);
      } else {
        expect(r.headers['webhook-id']).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      }
    }
    const stats = await deliveries(baseUrl);
    expect(stats).to.include({ delivered: 24, pending: 0, failed: 0, retried: 0, unsubscribed: 0 });
  });

  it('does not push types nobody subscribed to, nor a tampered body that verifies', async () => {
    await subscribe(['ORDER_CHANGE']);
    expect((await raise(baseUrl, { type: 'ANY_OFFER_CHANGED' })).status).to.equal(202);
    expect((await raise(baseUrl, { type: 'BUDGET_USAGE' })).status).to.equal(202);
    expect((await raise(baseUrl, { type: 'ORDER_CHANGE' })).status).to.equal(202);
    await until(() => receiver.received.length >= 1);
    await idle();
    expect(bodies().map(typeOf)).to.deep.equal(['ORDER_CHANGE']);
    expect(await deliveries(baseUrl)).to.include({ raised: 3, unsubscribed: 2, delivered: 1 });
    const tampered = { ...receiver.received[0]!, body: receiver.received[0]!.body.replace('OrderLevel', 'ItemLevel') };
    expect(() => verify(tampered)).to.throw();
  });

  it('Notifications API: destinations and one subscription per type, through the selling client', async () => {
    const n = clients.selling.notifications;
    const destination = await n.createDestination('store', { http: { url: receiver.url, secret: key } });
    expect(destination.resource).to.deep.equal({ http: { url: receiver.url } });
    expect(await n.getDestinations()).to.deep.equal([destination]);
    expect(await n.getDestination(destination.destinationId)).to.deep.equal(destination);
    const conflict = await rejectionOf(n.createDestination('again', { http: { url: receiver.url, secret: key } }));
    expect(conflict).to.be.instanceOf(MarketplaceError).with.property('status', 409);
    const request = { payloadVersion: '2023-12-13', destinationId: destination.destinationId };
    const subscription = await n.createSubscription('LISTINGS_ITEM_ISSUES_CHANGE', request);
    expect(subscription).to.include(request);
    expect(await n.getSubscription('LISTINGS_ITEM_ISSUES_CHANGE')).to.deep.equal(subscription);
    expect(await n.getSubscriptionById('LISTINGS_ITEM_ISSUES_CHANGE', subscription.subscriptionId)).to.deep.equal(
      subscription,
    );
    const twice = await rejectionOf(n.createSubscription('LISTINGS_ITEM_ISSUES_CHANGE', request));
    expect(twice).to.be.instanceOf(MarketplaceError).with.property('status', 409);
    const unknownType = await rejectionOf(n.createSubscription('NOT_A_TYPE', request));
    expect(unknownType).to.be.instanceOf(MarketplaceError).with.property('status', 400);
    const inUse = await rejectionOf(n.deleteDestination(destination.destinationId));
    expect(inUse).to.be.instanceOf(MarketplaceError).with.property('status', 409);

    await raise(baseUrl, { type: 'LISTINGS_ITEM_ISSUES_CHANGE' });
    await until(() => receiver.received.length === 1);
    expect(bodies()[0]).to.include({ PayloadVersion: '2023-12-13' });

    await n.deleteSubscriptionById('LISTINGS_ITEM_ISSUES_CHANGE', subscription.subscriptionId);
    const gone = await rejectionOf(n.getSubscription('LISTINGS_ITEM_ISSUES_CHANGE'));
    expect(gone).to.be.instanceOf(MarketplaceError).with.property('status', 404);
    await n.deleteDestination(destination.destinationId);
    expect(await n.getDestinations()).to.deep.equal([]);
  });

  it('Marketing Stream: PENDING_CONFIRMATION, then ACTIVE (or FAILED_CONFIRMATION when told), list and archive', async () => {
    const s = clients.ads.streams;
    const create = (dataSetId: string) =>
      s.create(profileId, {
        clientRequestToken: randomBytes(12).toString('hex'),
        dataSetId,
        destination: { httpDestination: { url: receiver.url, secret: key } },
      });
    const { subscriptionId } = await create('sp-traffic');
    expect(await s.get(profileId, subscriptionId)).to.include({
      status: 'PENDING_CONFIRMATION',
      dataSetId: 'sp-traffic',
    });
    await raise(baseUrl, { type: 'SP_TRAFFIC', profileId });
    await activated(subscriptionId);
    const active = await s.get(profileId, subscriptionId);
    expect(active).to.include({ status: 'ACTIVE' });
    expect(active.destination).to.deep.equal({ httpDestination: { url: receiver.url } });
    expect(receiver.received, 'nothing reached a pending subscription').to.have.length(0);

    await fetch(`${baseUrl}/_sim/streams`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failConfirmation: true }),
    });
    const failing = await create('budget-usage');
    await sleep(150);
    expect(await s.get(profileId, failing.subscriptionId)).to.include({ status: 'FAILED_CONFIRMATION' });
    expect((await s.list(profileId)).map((x) => x.subscriptionId).sort()).to.deep.equal(
      [subscriptionId, failing.subscriptionId].sort(),
    );
    const unknown = await rejectionOf(create('not-a-dataset'));
    expect(unknown).to.be.instanceOf(MarketplaceError).with.property('status', 400);

    await s.archive(profileId, subscriptionId);
    expect(await s.get(profileId, subscriptionId)).to.include({ status: 'ARCHIVED' });
    await raise(baseUrl, { type: 'SP_TRAFFIC', profileId });
    await sleep(100);
    expect(receiver.received, 'nothing reaches an archived subscription').to.have.length(0);
  });

  it('API calls raise their consequences: a listing patch, an SP v3 update, a finished report', async () => {
    await subscribe(['LISTINGS_ITEM_MFN_QUANTITY_CHANGE', 'CAMPAIGN_CHANGE', 'REPORT_PROCESSING_FINISHED']);
    const mfn = [...simulator.catalog.listingsIn(US)].find(
      (l) => l.fulfillmentChannel === 'MFN' && l.status !== 'DELETED',
    )!;
    await clients.selling.listings.patchListingsItem(simulator.seller.merchantId, mfn.sku, US, {
      productType: 'PRODUCT',
      patches: [
        {
          op: 'replace',
          path: '/attributes/fulfillment_availability',
          value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 7, marketplace_id: US }],
        },
      ],
    });
    const [campaign] = (await clients.ads.sp.list(profileId, 'campaigns', { maxResults: 1 })).items;
    await clients.ads.sp.update(profileId, 'campaigns', [
      { campaignId: campaign!.campaignId, name: 'Renamed by test' },
    ]);
    const reports = createReportsClient({
      endpoint: baseUrl,
      lwa: clients.lwa,
      refreshToken: SELLING_TOKEN,
      retry: QUICK_RETRY,
    });
    const reportId = await reports.createReport({
      reportType: 'GET_COUPON_PERFORMANCE_REPORT',
      marketplaceIds: [US],
      reportOptions: { couponStartDateFrom: '2026-01-01T00:00:00Z', couponStartDateTo: '2026-05-20T00:00:00Z' },
    });
    for (let i = 0; i < 3; i++) await reports.getReport(reportId);

    await until(() => receiver.received.length >= 3);
    const [quantity, change, report] = [
      'LISTINGS_ITEM_MFN_QUANTITY_CHANGE',
      'CAMPAIGN_CHANGE',
      'REPORT_PROCESSING_FINISHED',
    ].map((type) => bodies().find((b) => typeOf(b) === type)!);
    expect(quantity!.Payload).to.deep.equal({
      SellerId: simulator.seller.merchantId,
      FulfillmentChannelCode: 'DEFAULT',
      Sku: mfn.sku,
      Quantity: 7,
    });
    expect(change).to.include({ campaignId: campaign!.campaignId, name: 'Renamed by test', version: 1 });
    expect(at(report, ['payload', 'reportProcessingFinishedNotification'])).to.include({
      reportId,
      reportType: 'GET_COUPON_PERFORMANCE_REPORT',
      processingStatus: 'DONE',
    });
  });

  it('the market ticks on demand, the same way for the same seed, and its events reach subscribers', async () => {
    await subscribe(EVENT_TYPES);
    const tick = async (url: string) =>
      ((await (await post(url, '/_sim/market/tick', { count: 12 })).json()) as { happened: string[] }).happened;
    const happened = await tick(baseUrl);
    expect(happened).to.have.length(12);
    expect(happened.every((h) => h !== 'nothing')).to.equal(true);
    const twin = await startSimulator({ seed: 42 });
    try {
      expect(await tick(twin.baseUrl)).to.deep.equal(happened);
    } finally {
      await twin.simulator.close();
    }
    await until(() => receiver.received.length > 0);
    await idle();
    const stats = await deliveries(baseUrl);
    expect(stats.delivered).to.be.greaterThan(0);
    expect(stats.failed).to.equal(0);
  });

  it('a live market ticks by itself at its pace', async () => {
    await subscribe(SELLING_TYPES);
    await fetch(`${baseUrl}/_sim/market`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paceMs: 20 }),
    });
    await until(() => receiver.received.length >= 3);
    await fetch(`${baseUrl}/_sim/market`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paceMs: 0 }),
    });
  });

  describe('delivery', () => {
    const fault = (body: Record<string, unknown>) => post(baseUrl, '/_sim/events/faults', body);

    it('retries a receiver that answers 503 twice, and delivers on the third attempt', async () => {
      await subscribe(['ORDER_CHANGE']);
      receiver.statuses.push(503, 503);
      await raise(baseUrl, { type: 'ORDER_CHANGE' });
      await until(() => receiver.received.length === 3);
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size, 'one message, three attempts').to.equal(1);
      for (const r of receiver.received) expect(() => verify(r)).not.to.throw();
      await idle();
      expect(await deliveries(baseUrl)).to.include({ delivered: 1, retried: 2, pending: 0, failed: 0 });
    });

    it('gives up after the last attempt, and does not retry a 4xx', async () => {
      await subscribe(['ORDER_CHANGE', 'ACCOUNT_STATUS_CHANGED']);
      receiver.statuses.push(500, 500, 500, 500, 400);
      await raise(baseUrl, { type: 'ORDER_CHANGE' });
      await until(() => receiver.received.length === 4);
      await raise(baseUrl, { type: 'ACCOUNT_STATUS_CHANGED' });
      await until(() => receiver.received.length === 5);
      await idle();
      expect(await deliveries(baseUrl)).to.include({ delivered: 0, retried: 3, failed: 2, pending: 0 });
    });

    it('duplicate: the same message twice, same webhook-id', async () => {
      await subscribe(['ORDER_CHANGE']);
      expect((await fault({ kind: 'duplicate' })).status).to.equal(201);
      await raise(baseUrl, { type: 'ORDER_CHANGE' });
      await until(() => receiver.received.length === 2);
      expect(receiver.received[0]!.headers['webhook-id']).to.equal(receiver.received[1]!.headers['webhook-id']);
      expect(receiver.received[0]!.body).to.equal(receiver.received[1]!.body);
    });

    it('reorder: the held message arrives after the next one', async () => {
      await subscribe(['ACCOUNT_STATUS_CHANGED']);
      await fault({ kind: 'reorder', type: 'ACCOUNT_STATUS_CHANGED' });
      await raise(baseUrl, { type: 'ACCOUNT_STATUS_CHANGED', status: 'AT_RISK' });
      await raise(baseUrl, { type: 'ACCOUNT_STATUS_CHANGED', status: 'DEACTIVATED' });
      await until(() => receiver.received.length === 2);
      const statuses = bodies().map((b) => at(b, ['payload', 'accountStatusChangeNotification']).currentAccountStatus);
      expect(statuses).to.deep.equal(['DEACTIVATED', 'AT_RISK']);
    });

    describe('batches', () => {
      before(() => (batchMax = 3));
      after(() => (batchMax = 1));

      it('messages waiting for one URL go as one signed push of up to batchMax; a 5xx retries each, a refusal in the answer fails only its message', async () => {
        const typeIn = (body: unknown) => typeOf(body as Record<string, unknown>);
        await receiver.close();
        // the first push is answered late, so the next three wait and go together; that batch gets
        // a 503; afterwards ACCOUNT_STATUS_CHANGED is refused (in a batch's answer, or alone by a 400)
        receiver = await startReceiver((n, response) => {
          const r = receiver.received[n]!;
          const batch = r.headers['content-type'] === BATCH_CONTENT_TYPE;
          const messages = batch
            ? (JSON.parse(r.body) as { messages: Array<{ id: string; body: unknown }> }).messages
            : [{ id: String(r.headers['webhook-id']), body: JSON.parse(r.body) as unknown }];
          const refuse = (m: { body: unknown }) => typeIn(m.body) === 'ACCOUNT_STATUS_CHANGED';
          if (n === 0) setTimeout(() => response.writeHead(200).end(), 200);
          else if (n === 1) response.writeHead(503).end();
          else if (!batch) response.writeHead(refuse(messages[0]!) ? 400 : 200).end();
          else
            response.writeHead(200, { 'content-type': 'application/json' }).end(
              JSON.stringify({
                outcomes: messages.map((m) =>
                  refuse(m)
                    ? { id: m.id, error: 'unknown_type', detail: 'not here' }
                    : { id: m.id, outcome: 'recorded' },
                ),
              }),
            );
        });
        await subscribe(['ORDER_CHANGE', 'ACCOUNT_STATUS_CHANGED']);
        await raise(baseUrl, { type: 'ORDER_CHANGE' });
        await until(() => receiver.received.length === 1);
        for (const type of ['ORDER_CHANGE', 'ACCOUNT_STATUS_CHANGED', 'ORDER_CHANGE'])
          expect((await raise(baseUrl, { type })).status).to.equal(202);
        await until(() => receiver.received.length >= 2);
        const push = receiver.received[1]!;
        expect(push.headers['content-type']).to.equal(BATCH_CONTENT_TYPE);
        expect(String(push.headers['webhook-id'])).to.match(/^batch-/);
        expect(() => verify(push), 'the batch is signed as one body').not.to.throw();
        const { messages } = JSON.parse(push.body) as { messages: Array<{ id: string; body: Record<string, any> }> };
        expect(messages.map((m) => typeIn(m.body))).to.deep.equal([
          'ORDER_CHANGE',
          'ACCOUNT_STATUS_CHANGED',
          'ORDER_CHANGE',
        ]);
        for (const m of messages) {
          const metadata = (m.body.NotificationMetadata ?? m.body.notificationMetadata) as Record<string, string>;
          expect(m.id, 'each entry carries its message id').to.equal(
            metadata.NotificationId ?? metadata.notificationId,
          );
        }
        await idle();
        const stats = await deliveries(baseUrl);
        expect(stats).to.include({ delivered: 3, failed: 1, retried: 3, pending: 0 });
        const records = (await (await fetch(`${baseUrl}/_sim/events/deliveries`)).json()) as {
          deliveries: Array<{ id: string; state: string; type: string }>;
        };
        expect(records.deliveries.filter((d) => d.state === 'failed').map((d) => d.type)).to.deep.equal([
          'ACCOUNT_STATUS_CHANGED',
        ]);
      });
    });

    it('delay: the message waits delayMs before its first attempt', async () => {
      await subscribe(['FEED_PROCESSING_FINISHED']);
      await fault({ kind: 'delay', delayMs: 300 });
      const sent = Date.now();
      await raise(baseUrl, { type: 'FEED_PROCESSING_FINISHED' });
      await sleep(100);
      expect(receiver.received).to.have.length(0);
      expect((await deliveries(baseUrl)).pending).to.equal(1);
      await until(() => receiver.received.length === 1);
      expect(receiver.received[0]!.at - sent).to.be.at.least(290);
    });
  });
});
