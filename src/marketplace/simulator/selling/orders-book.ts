import { rngFor, type Catalog, type SimListing } from '../catalog.js';
import { MARKETPLACES } from '../marketplaces.js';

// The fictional seller's orders, generated per (UTC day, marketplace) from the seed alone, so
// one day can be served without generating the year. An order's facts (time, lines, prices,
// and when it will ship or be canceled) never change; its status is those facts read at
// the simulator's "now", so re-reading recent days shows orders moving on.

export const DAY_MS = 86_400_000;

export type OrderStatus = 'Pending' | 'Unshipped' | 'PartiallyShipped' | 'Shipped' | 'Canceled';

export interface SimOrderLine {
  orderItemId: string;
  listing: SimListing;
  quantity: number;
  /** Minor units of the order's currency: unit price × quantity, and the tax on it. */
  itemPrice: number;
  itemTax: number;
}

export interface SimOrder {
  amazonOrderId: string;
  marketplaceId: string;
  currency: string;
  /** UTC day number (days since 1970-01-01) and position in that day's orders of the marketplace. */
  day: number;
  ordinal: number;
  purchasedAt: number;
  fulfillmentChannel: 'AFN' | 'MFN';
  isBusinessOrder: boolean;
  lines: SimOrderLine[];
  /** Milliseconds after purchase at which the order leaves Pending, ships (first and last
   * shipment) or is canceled (then it never ships). */
  pendingMs: number;
  shipMs: number;
  lastShipMs: number;
  cancelMs: number | null;
}

export interface OrderAsOf {
  status: OrderStatus;
  lastUpdatedAt: number;
  /** Lines shipped so far (a partially shipped order has shipped its first line). */
  shippedLines: number;
}

export interface OrdersBook {
  /** Every order placed that UTC day in the marketplace, placed or not by now, in purchase order. */
  ordersOn(day: number, marketplaceId: string): readonly SimOrder[];
  /** The order with this id, or undefined for an id this book never issued. */
  order(amazonOrderId: string): SimOrder | undefined;
}

/** Share of the order lines each marketplace gets. */
const WEIGHT: Readonly<Record<string, number>> = { US: 0.45, CA: 0.1, GB: 0.15, DE: 0.15, JP: 0.15 };
const LINES_PER_ORDER = 1.32;
const HOUR = 3_600_000;
const STREAM_ORDERS = 32;
const STREAM_ORDER_IDS = 33;
const ID_SPACE = 10_000_000;
// Both odd and not multiples of 5, hence invertible modulo 10^7: ids decode to (day, ordinal).
const DAY_MULTIPLIER = 7919;
const ORDINAL_MULTIPLIER = 1_000_003;
const DAY_INVERSE = inverseMod(DAY_MULTIPLIER, ID_SPACE);
const ORDINAL_INVERSE = inverseMod(ORDINAL_MULTIPLIER, ID_SPACE);
const CACHED_DAYS = 64;

/** Status of an order at `now` (which must not be before its purchase). */
export function orderAsOf(order: SimOrder, now: number): OrderAsOf {
  const age = now - order.purchasedAt;
  const at = (ms: number) => order.purchasedAt + ms;
  if (order.cancelMs !== null && age >= order.cancelMs)
    return { status: 'Canceled', lastUpdatedAt: at(order.cancelMs), shippedLines: 0 };
  if (age < order.pendingMs) return { status: 'Pending', lastUpdatedAt: order.purchasedAt, shippedLines: 0 };
  if (age < order.shipMs) return { status: 'Unshipped', lastUpdatedAt: at(order.pendingMs), shippedLines: 0 };
  if (age < order.lastShipMs) return { status: 'PartiallyShipped', lastUpdatedAt: at(order.shipMs), shippedLines: 1 };
  return { status: 'Shipped', lastUpdatedAt: at(order.lastShipMs), shippedLines: order.lines.length };
}

export function createOrdersBook(catalog: Catalog): OrdersBook {
  const seed = catalog.seed;
  const idSalt = rngFor(seed, STREAM_ORDER_IDS, 0).int(0, ID_SPACE - 1);
  const cache = new Map<string, readonly SimOrder[]>();

  function generate(day: number, marketplaceIndex: number): SimOrder[] {
    const marketplace = MARKETPLACES[marketplaceIndex]!;
    const listings = catalog.marketplaceListingCount(marketplace.id);
    if (listings === 0) return [];
    const rng = rngFor(seed, STREAM_ORDERS, day * MARKETPLACES.length + marketplaceIndex);
    const weekend = [2, 3].includes(day % 7) ? 1.2 : 1; // day 0 was a Thursday
    const expected =
      ((catalog.scale.orderLines / 365) * (WEIGHT[marketplace.countryCode] ?? 0.1) * weekend) / LINES_PER_ORDER;
    const count = Math.floor(expected * (0.75 + 0.5 * rng.next()) + rng.next());
    const times = Array.from({ length: count }, () => rng.int(0, 86_399) * 1000).sort((a, b) => a - b);
    const daySalt = rngFor(seed, STREAM_ORDER_IDS, day + 1).int(0, ID_SPACE - 1);
    return times.map((time, ordinal) => {
      const prefix = (marketplaceIndex + 1) * 100 + ((((day * 37 + seed) % 100) + 100) % 100);
      const dayCode = (((day * DAY_MULTIPLIER + idSalt) % ID_SPACE) + ID_SPACE) % ID_SPACE;
      const ordinalCode = (ordinal * ORDINAL_MULTIPLIER + daySalt) % ID_SPACE;
      const pad = (n: number) => String(n).padStart(7, '0');
      const amazonOrderId = `${prefix}-${pad(dayCode)}-${pad(ordinalCode)}`;
      const lineCount = rng.next() < 0.75 ? 1 : rng.next() < 0.72 ? 2 : 3;
      const isBusinessOrder = rng.next() < 0.08;
      const picked = new Set<number>();
      for (let tries = 0; picked.size < lineCount && tries < lineCount * 3; tries++)
        picked.add(rng.int(0, listings - 1));
      const lines = [...picked].map((k, line) => {
        const listing = catalog.marketplaceListingAt(marketplace.id, k);
        const roll = rng.next();
        const quantity = roll < 0.85 ? 1 : roll < 0.95 ? 2 : rng.int(3, 5);
        const unit = isBusinessOrder && listing.b2bPrice !== null ? listing.b2bPrice : listing.price;
        // US and CA prices exclude sales tax; the others include VAT or consumption tax.
        const itemTax = ['US', 'CA'].includes(marketplace.countryCode) ? Math.round(unit * quantity * 0.08) : 0;
        return {
          orderItemId: `${pad(ordinalCode)}${pad(dayCode).slice(2)}${marketplaceIndex}${line}`,
          listing,
          quantity,
          itemPrice: unit * quantity,
          itemTax,
        };
      });
      const fulfillmentChannel = lines[0]!.listing.fulfillmentChannel === 'FBA' ? 'AFN' : 'MFN';
      const pendingMs = rng.int(2, 90) * 60_000;
      const shipMs =
        fulfillmentChannel === 'AFN'
          ? rng.int(6, 30) * HOUR
          : ((lines[0]!.listing.handlingTime ?? 2) * 24 - rng.int(0, 12)) * HOUR;
      const lastShipMs = lines.length > 1 && rng.next() < 0.4 ? shipMs + rng.int(24, 72) * HOUR : shipMs;
      const cancelMs = rng.next() < 0.03 ? Math.min(shipMs - HOUR, rng.int(1, 12) * HOUR) : null;
      return {
        amazonOrderId,
        marketplaceId: marketplace.id,
        currency: marketplace.currencyCode,
        day,
        ordinal,
        purchasedAt: day * DAY_MS + time,
        fulfillmentChannel,
        isBusinessOrder,
        lines,
        pendingMs,
        shipMs,
        lastShipMs,
        cancelMs,
      } satisfies SimOrder;
    });
  }

  function ordersOn(day: number, marketplaceId: string): readonly SimOrder[] {
    const index = MARKETPLACES.findIndex((m) => m.id === marketplaceId);
    if (index < 0) return [];
    const key = `${day}/${index}`;
    let orders = cache.get(key);
    if (orders) {
      cache.delete(key); // re-inserted below: most recently used last
    } else {
      orders = generate(day, index);
      if (cache.size >= CACHED_DAYS) cache.delete(cache.keys().next().value!);
    }
    cache.set(key, orders);
    return orders;
  }

  function order(amazonOrderId: string): SimOrder | undefined {
    const match = /^(\d)\d\d-(\d{7})-(\d{7})$/.exec(amazonOrderId);
    if (!match) return undefined;
    const marketplace = MARKETPLACES[Number(match[1]) - 1];
    if (!marketplace) return undefined;
    const day = mulMod((Number(match[2]) - idSalt + ID_SPACE) % ID_SPACE, DAY_INVERSE, ID_SPACE);
    const daySalt = rngFor(seed, STREAM_ORDER_IDS, day + 1).int(0, ID_SPACE - 1);
    const ordinal = mulMod((Number(match[3]) - daySalt + ID_SPACE) % ID_SPACE, ORDINAL_INVERSE, ID_SPACE);
    const found = ordersOn(day, marketplace.id)[ordinal];
    return found?.amazonOrderId === amazonOrderId ? found : undefined;
  }

  return { ordersOn, order };
}

/** a·b mod m without leaving exact double range (a, b < 10^7). */
const mulMod = (a: number, b: number, m: number) => Number((BigInt(a) * BigInt(b)) % BigInt(m));

function inverseMod(a: number, m: number): number {
  let [oldR, r, oldS, s] = [a, m, 1, 0];
  while (r !== 0) {
    const q = Math.floor(oldR / r);
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % m) + m) % m;
}
