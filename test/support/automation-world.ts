import { randomBytes, randomUUID } from 'node:crypto';
import { executeDispatchControlCommand } from '../../src/commands/dispatch-control/execute.js';
import { configureWebhook } from '../../src/commands/webhook/settings.js';
import { recordMarketplaceEvent, marketplaceEventStream } from '../../src/commands/event/record.js';
import { readMessage } from '../../src/domain/event/message.js';
import { DATASETS, isAdsType, VERSIONS, type EventType } from '../../src/marketplace/simulator/events/types.js';
import type { Projection } from '../../src/projections/projection.js';
import { admissionProjection } from '../../src/projections/admission/projection.js';
import { eventsProjection } from '../../src/projections/events/projection.js';
import { adsProjection } from '../../src/projections/observed/ads.js';
import { couponsProjection } from '../../src/projections/observed/coupons.js';
import { fbaInventoryProjection } from '../../src/projections/observed/inventory.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { ordersProjection } from '../../src/projections/observed/orders.js';
import { promotionsProjection } from '../../src/projections/observed/promotions.js';
import { SELECTABLE_STREAM_TYPES } from '../../src/domain/stream/types.js';
import { adsEntitiesSync } from '../../src/workers/sync/ads-entities.js';
import { adsCampaignMetricsSync, adsTargetingMetricsSync } from '../../src/workers/sync/ads-metrics.js';
import { inventorySync } from '../../src/workers/sync/inventory.js';
import type { SyncJobDefinition } from '../../src/workers/sync/job.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { ordersSync } from '../../src/workers/sync/orders.js';
import { couponsSync, promotionsSync } from '../../src/workers/sync/reports-deals.js';
import { ReportNotReady } from '../../src/workers/sync/reports.js';
import { ADS_TOKEN, clientsFor, SELLING_TOKEN } from './marketplace.js';
import { startHarness, type Harness } from './observed.js';
import { sleep, startReceiver, until, type Receiver } from './receiver.js';

// The demo seller as automations see it: synced from the simulator through the real clients and
// sync jobs into the read models (listings, FBA inventory, orders, ads entities and metrics,
// coupons, promotions), and marketplace events the simulator raises, recorded the way ingestion
// records them. Contexts and outboxes are built and admitted against this world.

export const SEED = 29;
/** 13:00 in Los Angeles, 05:00 the next day in Tokyo */
export const START = Date.parse('2026-05-20T20:00:00Z');

export interface RaisedEvent {
  stream_type: string;
  payload: Record<string, unknown>;
  /** the recorded event's id (get_event, run_automation's event_id) */
  eventId: string;
}

export interface AutomationWorld {
  h: Harness;
  account: string;
  baseUrl: string;
  now(): Date;
  /** Runs a sync job for the account (or another one) as the demo seller (and advertiser). */
  sync(job: SyncJobDefinition, accountId?: string): Promise<void>;
  /** Has the simulator raise one event (about the target given), and records it as ingestion would. */
  raise(type: EventType, target?: Record<string, string>): Promise<RaisedEvent>;
  /** The account's listings that are advertised (a product ad names their SKU), by marketplace and SKU. */
  advertised(): Promise<Array<{ sku: string; marketplace_id: string }>>;
  /** Sets a listing's block flag or a campaign's Automation switch (off = withheld), as update_listing and the CLI do. */
  withhold(target: { type: 'Listing' | 'Campaign'; id: string }, withheld: boolean): Promise<void>;
  close(): Promise<void>;
}

/** The push of a listing update setting its price: one offer patch in its marketplace and currency. */
export const priceUpdate = (listing: Record<string, any>, price: number) => ({
  target: listing,
  action: 'update',
  payload: {
    productType: 'PRODUCT',
    patches: [
      {
        op: 'merge',
        path: '/attributes/purchasable_offer',
        value: [
          {
            marketplace_id: listing.marketplace.id,
            currency: listing.currencyCode,
            audience: 'ALL',
            our_price: [{ schedule: [{ value_with_tax: price }] }],
          },
        ],
      },
    ],
  },
});

/**
 * `deals: false` skips the coupon and promotion reports; `projections` adds read models (automations,
 * webhooks, …) to the world's; `user` is the user the account is registered for (MCP tests act as them).
 */
/** Configures the account's `alerts` webhook (JSON, no headers) to post to `url`, as `user` would. */
export async function configureAlertsWebhook(w: AutomationWorld, user: string, url: string): Promise<void> {
  await configureWebhook(
    {
      store: w.h.store,
      db: w.h.db,
      by: 'test',
      actor: { kind: 'user', id: user },
      signingKey: 'test-signing-key-of-32-bytes-or-more!!',
      allowPrivateNetworks: true,
    },
    { account_id: w.account, name: 'alerts', url, headers: {}, kind: 'json' },
  );
}

export async function startAutomationWorld(
  options: { deals?: boolean; projections?: Projection[]; user?: string } = {},
): Promise<AutomationWorld> {
  const h = await startHarness(
    [
      listingsProjection,
      fbaInventoryProjection,
      ordersProjection,
      adsProjection,
      couponsProjection,
      promotionsProjection,
      eventsProjection,
      admissionProjection,
      ...(options.projections ?? []),
    ],
    [],
    START,
    SEED,
  );
  const account = await h.connect('seller', options.user);
  const sync = async (job: SyncJobDefinition, accountId = account) => {
    const deps = h.deps(SELLING_TOKEN);
    // a report still being made fails the run; the worker's retry adopts it, as this loop does
    for (let attempt = 1; ; attempt++) {
      try {
        await job.run(
          { ...deps, credentials: () => ({ selling_refresh_token: SELLING_TOKEN, ads_refresh_token: ADS_TOKEN }) },
          accountId,
        );
        break;
      } catch (err) {
        if (!(err instanceof ReportNotReady) || attempt >= 30) throw err;
        await sleep(500);
      }
    }
    await h.projector.whenCaughtUp();
  };
  for (const job of [
    listingsSync,
    inventorySync,
    ordersSync,
    adsEntitiesSync,
    adsCampaignMetricsSync({ historyDays: 32 }),
    adsTargetingMetricsSync({ historyDays: 32 }),
    ...(options.deals === false ? [] : [couponsSync, promotionsSync]),
  ])
    await sync(job);

  const receiver = await subscribeEverything(h);
  const baseUrl = h.simulator.endpoints().sellingApiUrl;
  return {
    h,
    account,
    baseUrl,
    now: () => new Date(h.clock.ms),
    sync,
    async raise(type, target = {}) {
      const before = receiver.received.length;
      const answer = await fetch(`${baseUrl}/_sim/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type, ...target }),
      });
      if (answer.status !== 202) throw new Error(`the simulator raised no ${type}: ${await answer.text()}`);
      await until(() => receiver.received.slice(before).some((r) => typeOf(r.body) === type));
      const delivery = receiver.received.slice(before).find((r) => typeOf(r.body) === type)!;
      const payload = JSON.parse(delivery.body) as Record<string, unknown>;
      const received_at = new Date(h.clock.ms).toISOString();
      const kind = readMessage(payload, received_at);
      if ('refused' in kind) throw new Error(kind.refused);
      const message_id = String(delivery.headers['webhook-id'] ?? randomUUID());
      await recordMarketplaceEvent(h.store, { account_id: account, message_id, ...kind, received_at, payload });
      await h.projector.whenCaughtUp();
      const row = await h.db
        .withSchema('rm')
        .table('marketplace_events')
        .where({ stream: marketplaceEventStream(account, message_id) })
        .first('id');
      return { stream_type: kind.stream_type, payload, eventId: row.id as string };
    },
    advertised: () =>
      h.db
        .withSchema('rm')
        .from('ads_product_ads as a')
        .join('listing_current as c', (j) =>
          j.on('c.account_id', 'a.account_id').andOn('c.marketplace_id', 'a.marketplace_id').andOn('c.sku', 'a.sku'),
        )
        .where('a.account_id', account)
        .distinct('c.marketplace_id', 'c.sku')
        .orderBy(['c.marketplace_id', 'c.sku']),
    async withhold(target, withheld) {
      const at = new Date(h.clock.ms).toISOString();
      await executeDispatchControlCommand(
        { store: h.store, metadata: { actor: { kind: 'user', id: 'test' } } },
        target.type === 'Listing'
          ? { type: 'SetListingBlock', account_id: account, listing_id: target.id, blocked: withheld, at }
          : { type: 'SetCampaignAutomation', account_id: account, campaign_id: target.id, enabled: !withheld, at },
      );
    },
    async close() {
      await receiver.close();
      await h.close();
    },
  };
}

/** The type a pushed body is of (notification type, or the dataset's event type). */
function typeOf(body: string): string | null {
  const row = JSON.parse(body) as Record<string, unknown>;
  const notification = row.NotificationType ?? row.notificationType;
  if (typeof notification === 'string') return notification;
  const dataset = row.dataset_id ?? row.datasetId;
  return Object.entries(DATASETS).find(([, d]) => d === dataset)?.[0] ?? null;
}

/** Subscribes a receiver to every selectable marketplace type, ads types in every profile. */
async function subscribeEverything(h: Harness): Promise<Receiver> {
  const receiver = await startReceiver();
  const clients = clientsFor(h.simulator);
  const key = `whsec_${randomBytes(32).toString('base64')}`;
  const destination = await clients.selling.notifications.createDestination('automation-world', {
    http: { url: receiver.url, secret: key },
  });
  const pending: Array<{ profileId: string; subscriptionId: string }> = [];
  for (const { code } of SELECTABLE_STREAM_TYPES.filter((t) => t.source !== 'local')) {
    if (!isAdsType(code)) {
      await clients.selling.notifications.createSubscription(code, {
        payloadVersion: VERSIONS[code as keyof typeof VERSIONS].payload[0]!,
        destinationId: destination.destinationId,
      });
      continue;
    }
    for (const profile of h.simulator.seller.profiles) {
      const profileId = String(profile.profileId);
      const { subscriptionId } = await clients.ads.streams.create(profileId, {
        clientRequestToken: randomUUID(),
        dataSetId: DATASETS[code],
        destination: { httpDestination: { url: receiver.url, secret: key } },
      });
      pending.push({ profileId, subscriptionId });
    }
  }
  // the marketplace confirms stream subscriptions after a while: all of them at once here
  for (const { profileId, subscriptionId } of pending)
    for (let i = 0; i < 500 && (await clients.ads.streams.get(profileId, subscriptionId)).status !== 'ACTIVE'; i++)
      await sleep(20);
  return receiver;
}
