import { rngOf } from '../ads/seeded.js';
import type { Rng } from '../prng.js';
import { raiseBudgetUsage, raiseFbaInventory, raiseHourOfMetrics, raiseOfferChange, RAISERS } from './raise.js';
import { findCampaign, findOrder, type EventSources } from './sources.js';
import { orderChange } from './selling-orders.js';
import { DAY_MS } from '../selling/orders-book.js';

// The live market: every tick something happens to the seller, chosen by (seed, tick number)
// alone: an order arrives, a competitor reprices, stock moves, a campaign spends, an hour of
// ads metrics or of traffic closes. The changes land in the simulator's state (quantities,
// FBA stock, competitors' prices, budget use) and raise the notifications that follow.

export interface Market {
  /** Runs `count` ticks now; returns what happened at each. */
  tick(count?: number): string[];
  /** 0 stops the clock; tests tick on demand. */
  setPace(ms: number): void;
  readonly paceMs: number;
  close(): void;
}

type Happening = (s: EventSources, rng: Rng) => string | undefined;

const randomListing = (s: EventSources, rng: Rng) => {
  const { catalog } = s.selling.listings;
  const live = s.selling.listings.live(catalog.listingAt(rng.int(0, catalog.listingCount - 1)));
  return live.status === 'DELETED' ? undefined : live;
};

const randomCampaign = (s: EventSources, rng: Rng) => {
  const ads = s.ads.profile(String(rng.pick(s.seller.profiles).profileId));
  const campaign = ads && findCampaign(ads);
  return ads && campaign ? { ads, campaign } : undefined;
};

const HAPPENINGS: ReadonlyArray<readonly [weight: number, Happening]> = [
  [
    3,
    function order(s) {
      // the newest order of the last day not announced yet: its lines leave the seller's stock
      const since = s.now() - DAY_MS;
      const order = findOrder(s, {}, (o) => o.purchasedAt >= since && !s.market.announced.has(o.amazonOrderId));
      if (!order) return undefined;
      s.market.announced.set(order.amazonOrderId, order.purchasedAt);
      // orders older than a day are never picked again: forget them, so a long run stays small
      for (const [id, purchasedAt] of s.market.announced) {
        if (purchasedAt >= since) break;
        s.market.announced.delete(id);
      }
      s.hub.selling('ORDER_CHANGE', s.seller.merchantId, orderChange(s.seller.merchantId, order, s.now()));
      for (const line of order.lines) {
        const l = s.selling.listings.live(line.listing);
        if (l.fulfillmentChannel === 'MFN')
          s.selling.listings.setQuantity(l.sku, l.marketplaceId, Math.max(0, l.quantity - line.quantity));
        else {
          s.selling.stock.move(l, -line.quantity);
          raiseFbaInventory(s, l);
        }
      }
      return `order ${order.amazonOrderId}`;
    },
  ],
  [
    3,
    function competitorReprices(s, rng) {
      const l = randomListing(s, rng);
      if (!l) return undefined;
      raiseOfferChange(s, l, 'External', s.competition.move(l, rng));
      return `competitor reprices ${l.sku}`;
    },
  ],
  [
    2,
    function stockMoves(s, rng) {
      const l = randomListing(s, rng);
      if (!l) return undefined;
      const delta = rng.int(-5, 20);
      if (l.fulfillmentChannel === 'MFN')
        s.selling.listings.setQuantity(l.sku, l.marketplaceId, Math.max(0, l.quantity + delta));
      else {
        s.selling.stock.move(l, delta);
        raiseFbaInventory(s, l);
      }
      return `stock of ${l.sku} moves by ${delta}`;
    },
  ],
  [
    3,
    function campaignSpends(s, rng) {
      const found = randomCampaign(s, rng);
      if (!found) return undefined;
      raiseBudgetUsage(s, found.ads, found.campaign, rng.int(1, 8));
      return `campaign ${String(found.campaign.campaignId)} spends`;
    },
  ],
  [
    1,
    function adsHourCloses(s, rng) {
      const found = randomCampaign(s, rng);
      return found && raiseHourOfMetrics(s, found.ads, String(found.campaign.campaignId))
        ? `an hour of campaign ${String(found.campaign.campaignId)} closes`
        : undefined;
    },
  ],
  [
    1,
    function salesHourCloses(s, rng) {
      const marketplaceId = rng.pick(s.seller.participations).marketplace.id;
      RAISERS.ITEM_SALES_EVENT_CHANGE(s, { marketplaceId });
      RAISERS.DETAIL_PAGE_TRAFFIC_EVENT(s, { marketplaceId });
      return `an hour of sales in ${marketplaceId} closes`;
    },
  ],
];
const TOTAL_WEIGHT = HAPPENINGS.reduce((sum, [w]) => sum + w, 0);

export function createMarket(s: EventSources, paceMs: number): Market {
  let ticks = 0;
  let pace = 0;
  let timer: NodeJS.Timeout | undefined;

  /** The drawn happening, or when it finds nothing to act on (no new order), the next that does. */
  function tickOnce(): string {
    const rng = rngOf(s.seed, 'market', ++ticks);
    let roll = rng.next() * TOTAL_WEIGHT;
    const first = Math.max(
      0,
      HAPPENINGS.findIndex(([w]) => (roll -= w) < 0),
    );
    for (let i = 0; i < HAPPENINGS.length; i++) {
      const happened = HAPPENINGS[(first + i) % HAPPENINGS.length]![1](s, rng);
      if (happened) return happened;
    }
    return 'nothing';
  }

  const market: Market = {
    tick: (count = 1) => Array.from({ length: count }, tickOnce),
    setPace(ms) {
      pace = ms;
      if (timer) clearInterval(timer);
      timer = undefined;
      if (ms > 0) {
        timer = setInterval(tickOnce, ms);
        timer.unref();
      }
    },
    get paceMs() {
      return pace;
    },
    close: () => market.setPace(0),
  };
  market.setPace(paceMs);
  return market;
}
