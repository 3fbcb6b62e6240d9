import { MARKETPLACES, type SimMarketplace } from './marketplaces.js';
import { createRng, type Rng } from './prng.js';

// The fictional seller's product catalog: every listing is computed from (seed, index) alone,
// so listingAt(i) costs O(1) and a bench-scale catalog (100,000 listings) is never held in
// memory. Listings come in blocks of eight slots with a fixed layout, which gives every
// catalog SKUs selling in several marketplaces and ASINs shared by several SKUs:
//
//   slot 0..2  SKU A (new) in US, CA and GB        product P0
//   slot 3     SKU B (another condition) in US      product P0 (shares A's ASIN)
//   slot 4..5  SKU C in DE and JP                   product P1
//   slot 6     SKU D in JP                          product P2
//   slot 7     SKU E in US                          product P3

export interface Scale {
  listings: number;
  /** Order lines over the year of order history. */
  orderLines: number;
}

/** Tens of listings and about a year of orders: starts in well under a second. */
export const DEMO_SCALE: Scale = { listings: 40, orderLines: 3_000 };
/** The bench profile (docs/benchmarks.md, "Machines and profiles"). */
export const BENCH_SCALE: Scale = { listings: 100_000, orderLines: 1_000_000 };

export type ListingStatus = 'BUYABLE' | 'DISCOVERABLE' | 'DELETED';
export type FulfillmentChannel = 'FBA' | 'MFN';
export type ConditionFamily = 'new' | 'used' | 'collectible' | 'refurbished' | 'club';

/** The Listings Items API's condition_type tokens, by family. */
export const CONDITION_TOKENS: Readonly<Record<ConditionFamily, readonly string[]>> = {
  new: ['new_new', 'new_open_box', 'new_oem'],
  used: ['used_like_new', 'used_very_good', 'used_good', 'used_acceptable'],
  collectible: ['collectible_like_new', 'collectible_very_good', 'collectible_good', 'collectible_acceptable'],
  refurbished: ['refurbished_refurbished'],
  club: ['club_club'],
};

export interface SimListing {
  /** Position in the catalog, 0 ≤ index < listingCount. */
  index: number;
  sku: string;
  asin: string;
  marketplaceId: string;
  currency: string;
  title: string;
  productType: string;
  /** Integer minor units of `currency` (whole yen for JPY). */
  price: number;
  /** Business (B2B audience) price in minor units; null when the listing has no B2B offer. */
  b2bPrice: number | null;
  /** minimum_seller_allowed_price / maximum_seller_allowed_price in minor units; null when unset. */
  floor: number | null;
  ceiling: number | null;
  fulfillmentChannel: FulfillmentChannel;
  conditionType: string;
  conditionFamily: ConditionFamily;
  /** Null: the marketplace has not reported a status yet. */
  status: ListingStatus | null;
  /** lead_time_to_ship_max_days; MFN only, null = account default. */
  handlingTime: number | null;
  /** merchant_shipping_group; MFN only. */
  shippingGroup: string | null;
  /** YYYY-MM-DD; MFN only, mostly null. */
  restockDate: string | null;
  /** ISO 8601 UTC; always before the year of order history. */
  createdAt: string;
}

export interface CatalogProduct {
  asin: string;
  title: string;
  productType: string;
  brand: string;
  color: string;
  /** 13-digit EAN/UPC-style code, the catalog's identifier. */
  ean: string;
  /** List price of a new unit in US cents; marketplaces and conditions derive theirs from it. */
  usdCents: number;
}

export interface Catalog {
  readonly seed: number;
  readonly scale: Scale;
  readonly listingCount: number;
  /** The listing at `index`; throws outside [0, listingCount). */
  listingAt(index: number): SimListing;
  /** The listings of one marketplace, in index order, without visiting the others. */
  listingsIn(marketplaceId: string): Iterable<SimListing>;
  /** How many listings one marketplace has. */
  marketplaceListingCount(marketplaceId: string): number;
  /** The k-th listing of one marketplace (in index order), for paging in O(1). */
  marketplaceListingAt(marketplaceId: string, k: number): SimListing;
  /** A listing by its key, or undefined. */
  findListing(sku: string, marketplaceId: string): SimListing | undefined;
  /** Every product (ASIN) some listing sells, by ASIN; undefined for ASINs not in the catalog. */
  productByAsin(asin: string): CatalogProduct | undefined;
  /** The marketplaces where some listing sells the product. */
  productMarketplaces(asin: string): string[];
  readonly productCount: number;
  productAt(index: number): CatalogProduct;
}

const BLOCK = 8;
const PRODUCTS_PER_BLOCK = 4;
const SKUS_PER_BLOCK = 5;
const US = 'ATVPDKIKX0DER';
const CA = 'A2EUQ1WTGCTBG2';
const GB = 'A1F83G8C2ARO7P';
const DE = 'A1PA6795UKMFR9';
const JP = 'A1VC38T7YXB528';
/** Per slot: marketplace, SKU within the block, product within the block. */
const SLOTS: readonly { marketplaceId: string; sku: number; product: number }[] = [
  { marketplaceId: US, sku: 0, product: 0 },
  { marketplaceId: CA, sku: 0, product: 0 },
  { marketplaceId: GB, sku: 0, product: 0 },
  { marketplaceId: US, sku: 1, product: 0 },
  { marketplaceId: DE, sku: 2, product: 1 },
  { marketplaceId: JP, sku: 2, product: 1 },
  { marketplaceId: JP, sku: 3, product: 2 },
  { marketplaceId: US, sku: 4, product: 3 },
];

/** Rough exchange rates from USD, so one product costs about the same everywhere. */
const FROM_USD: Readonly<Record<string, number>> = { USD: 1, CAD: 1.37, GBP: 0.79, EUR: 0.92, JPY: 150 };
const MINOR_DIGITS: Readonly<Record<string, number>> = { JPY: 0 };

/** Digits of a currency's minor unit: 0 for JPY, 2 for the others the simulator uses. */
export const minorDigits = (currency: string): number => MINOR_DIGITS[currency] ?? 2;

/** Minor units as the wire's decimal string, e.g. 1299 USD → "12.99", 1500 JPY → "1500". */
export function formatAmount(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  return digits === 0 ? String(minor) : (minor / 10 ** digits).toFixed(digits);
}

const PRODUCT_TYPES = [
  'HOME',
  'KITCHEN',
  'OFFICE_PRODUCTS',
  'PET_SUPPLIES',
  'SPORTING_GOODS',
  'TOY_FIGURE',
  'LUGGAGE',
  'DRINKING_CUP',
];
const NOUNS: Readonly<Record<string, readonly string[]>> = {
  HOME: ['Storage Basket', 'Throw Blanket', 'Candle Set', 'Picture Frame'],
  KITCHEN: ['Cutting Board', 'Chef Knife', 'Spice Rack', 'Mixing Bowls'],
  OFFICE_PRODUCTS: ['Desk Organizer', 'Notebook Pack', 'Gel Pens', 'Monitor Stand'],
  PET_SUPPLIES: ['Dog Leash', 'Cat Scratcher', 'Pet Bed', 'Chew Toy'],
  SPORTING_GOODS: ['Yoga Mat', 'Resistance Bands', 'Jump Rope', 'Water Bottle Cage'],
  TOY_FIGURE: ['Action Figure', 'Dinosaur Figure', 'Robot Figure', 'Knight Figure'],
  LUGGAGE: ['Carry-On Suitcase', 'Packing Cubes', 'Travel Duffel', 'Luggage Tags'],
  DRINKING_CUP: ['Travel Mug', 'Tumbler', 'Espresso Cups', 'Insulated Cup'],
};
const ADJECTIVES = ['Classic', 'Compact', 'Deluxe', 'Everyday', 'Premium', 'Rustic', 'Modern', 'Eco'];
const COLOURS = ['Black', 'Walnut', 'Sage Green', 'Slate Grey', 'Ivory', 'Navy', 'Terracotta', 'Charcoal'];
const BRANDS = ['Northwind', 'Copperleaf', 'Harborline', 'Red Fern', 'Granite & Co'];
/** Second SKUs on a shared ASIN cycle through the non-new families, so every catalog of five
 * blocks or more (the demo has five) carries every condition family. */
const SECOND_CONDITION: readonly ConditionFamily[] = ['used', 'refurbished', 'collectible', 'club'];
/** The last slot cycles through every status, so the demo has each of them. */
const STATUS_CYCLE: readonly (ListingStatus | null)[] = ['DELETED', null, 'DISCOVERABLE', 'BUYABLE'];
const ASIN_SPACE = 36n ** 8n;
/** About 0.618 of 36^8 (neighbouring products get unrelated ASINs); odd and not a multiple
 * of 3, hence invertible modulo 36^8: distinct products, distinct ASINs. */
const ASIN_MULTIPLIER = 1_743_541_808_669n;
const CREATED_FROM = Date.UTC(2023, 0, 1);
const CREATED_SPAN_DAYS = 540;

/** A generator for one (seed, stream, index), independent of every other index. Streams
 * below 16 are the catalog's; other generators of the simulator pick their own. */
export function rngFor(seed: number, stream: number, index: number): Rng {
  let h =
    Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(stream + 1, 0xc2b2ae35) ^ Math.imul(index + 1, 0x27d4eb2f);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return createRng((h ^ (h >>> 16)) >>> 0);
}

const STREAM_PRODUCT = 1;
const STREAM_SKU = 2;
const STREAM_LISTING = 3;

export function catalogFor(seed: number, scale: Partial<Scale> = {}): Catalog {
  const fullScale: Scale = { ...DEMO_SCALE, ...scale };
  const listingCount = fullScale.listings;
  const blocks = Math.ceil(listingCount / BLOCK);
  const productCount = blocks * PRODUCTS_PER_BLOCK;
  const skuPrefix = createRng(seed).chars(2, 'ABCDEFGHJKLMNPQRSTUVWXYZ');
  const asinOffset = BigInt(createRng(seed ^ 0x5bd1e995).int(0, 2 ** 40));
  const asinInverse = modInverse(ASIN_MULTIPLIER, ASIN_SPACE);

  const asinOf = (product: number) =>
    `B0${((BigInt(product) * ASIN_MULTIPLIER + asinOffset) % ASIN_SPACE).toString(36).toUpperCase().padStart(8, '0')}`;

  function productAt(index: number): CatalogProduct {
    if (!Number.isInteger(index) || index < 0 || index >= productCount)
      throw new RangeError(`catalog: no product ${index}`);
    const rng = rngFor(seed, STREAM_PRODUCT, index);
    const productType = rng.pick(PRODUCT_TYPES);
    const brand = rng.pick(BRANDS);
    const color = rng.pick(COLOURS);
    const title = `${brand} ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS[productType]!)}, ${color}`;
    const ean = ean13(`40${rng.chars(10, '0123456789')}`);
    return { asin: asinOf(index), title, productType, brand, color, ean, usdCents: rng.int(6, 120) * 100 - 1 };
  }

  function listingAt(index: number): SimListing {
    if (!Number.isInteger(index) || index < 0 || index >= listingCount)
      throw new RangeError(`catalog: no listing ${index}`);
    const block = Math.floor(index / BLOCK);
    const slot = SLOTS[index % BLOCK]!;
    const product = productAt(block * PRODUCTS_PER_BLOCK + slot.product);
    const marketplace = MARKETPLACES.find((m) => m.id === slot.marketplaceId)!;
    const skuIndex = block * SKUS_PER_BLOCK + slot.sku;
    // What a SKU keeps across marketplaces (condition, channel, base price, creation) comes
    // from the SKU's generator; what differs per marketplace from the listing's.
    const skuRng = rngFor(seed, STREAM_SKU, skuIndex);
    const rng = rngFor(seed, STREAM_LISTING, index);
    const conditionFamily: ConditionFamily =
      slot.sku === 1
        ? SECOND_CONDITION[block % SECOND_CONDITION.length]!
        : skuRng.next() < 0.9
          ? 'new'
          : skuRng.pick(['used', 'refurbished'] as const);
    const conditionType =
      conditionFamily === 'new'
        ? skuRng.next() < 0.85
          ? 'new_new'
          : skuRng.pick(CONDITION_TOKENS.new)
        : skuRng.pick(CONDITION_TOKENS[conditionFamily]);
    const fulfillmentChannel: FulfillmentChannel = skuRng.next() < 0.6 ? 'FBA' : 'MFN';
    const usdCents =
      conditionFamily === 'new' ? product.usdCents : Math.round((product.usdCents * skuRng.int(60, 85)) / 100);
    const createdAt = new Date(CREATED_FROM + skuRng.int(0, CREATED_SPAN_DAYS * 86_400 - 1) * 1000).toISOString();
    const price = localPrice(usdCents, marketplace);
    const b2bPrice = rng.next() < 0.3 ? Math.round(price * 0.95) : null;
    const bounded = rng.next() < 0.4;
    const status = index % BLOCK === BLOCK - 1 ? STATUS_CYCLE[block % STATUS_CYCLE.length]! : listingStatus(rng);
    const mfn = fulfillmentChannel === 'MFN';
    return {
      index,
      sku: `${skuPrefix}-${skuIndex.toString(36).toUpperCase().padStart(5, '0')}${conditionFamily === 'new' ? '' : `-${conditionFamily.slice(0, 3).toUpperCase()}`}`,
      asin: product.asin,
      marketplaceId: marketplace.id,
      currency: marketplace.currencyCode,
      title: product.title,
      productType: product.productType,
      price,
      b2bPrice,
      floor: bounded ? Math.round(price * 0.8) : null,
      ceiling: bounded ? Math.round(price * 1.3) : null,
      fulfillmentChannel,
      conditionType,
      conditionFamily,
      status,
      handlingTime: mfn && rng.next() < 0.7 ? rng.int(1, 5) : null,
      shippingGroup: mfn ? `legacy-template-id-${rng.int(1, 3)}` : null,
      restockDate:
        mfn && rng.next() < 0.15 ? new Date(Date.UTC(2026, 11, rng.int(1, 28))).toISOString().slice(0, 10) : null,
      createdAt,
    };
  }

  const slotsOf = (marketplaceId: string) => SLOTS.flatMap((s, i) => (s.marketplaceId === marketplaceId ? [i] : []));

  function marketplaceListingCount(marketplaceId: string): number {
    const slots = slotsOf(marketplaceId);
    const full = Math.floor(listingCount / BLOCK);
    return full * slots.length + slots.filter((slot) => full * BLOCK + slot < listingCount).length;
  }

  function marketplaceListingAt(marketplaceId: string, k: number): SimListing {
    const slots = slotsOf(marketplaceId);
    if (slots.length === 0) throw new RangeError(`catalog: no listings in ${marketplaceId}`);
    return listingAt(Math.floor(k / slots.length) * BLOCK + slots[k % slots.length]!);
  }

  function* listingsIn(marketplaceId: string): Iterable<SimListing> {
    const count = marketplaceListingCount(marketplaceId);
    for (let k = 0; k < count; k++) yield marketplaceListingAt(marketplaceId, k);
  }

  function findListing(sku: string, marketplaceId: string): SimListing | undefined {
    const match = /^([A-Z]{2})-([0-9A-Z]{5})(?:-[A-Z]{3})?$/.exec(sku);
    if (!match || match[1] !== skuPrefix) return undefined;
    const skuIndex = parseInt(match[2]!, 36);
    const block = Math.floor(skuIndex / SKUS_PER_BLOCK);
    const slot = SLOTS.findIndex((s) => s.sku === skuIndex % SKUS_PER_BLOCK && s.marketplaceId === marketplaceId);
    const index = block * BLOCK + slot;
    if (slot < 0 || index >= listingCount) return undefined;
    const listing = listingAt(index);
    return listing.sku === sku ? listing : undefined;
  }

  /** The listing indexes selling a product, or [] for an ASIN not in the catalog. */
  function listingsOfAsin(asin: string): number[] {
    const match = /^B0([0-9A-Z]{8})$/.exec(asin);
    if (!match) return [];
    const code = BigInt(parseInt(match[1]!, 36));
    const product = Number(
      (((((code - asinOffset) % ASIN_SPACE) + ASIN_SPACE) % ASIN_SPACE) * asinInverse) % ASIN_SPACE,
    );
    if (product >= productCount) return [];
    const block = Math.floor(product / PRODUCTS_PER_BLOCK);
    // A partial last block may leave a product unsold.
    return SLOTS.flatMap((s, slot) =>
      s.product === product % PRODUCTS_PER_BLOCK ? [block * BLOCK + slot] : [],
    ).filter((i) => i < listingCount);
  }

  function productByAsin(asin: string): CatalogProduct | undefined {
    const [first] = listingsOfAsin(asin);
    return first === undefined
      ? undefined
      : productAt(Math.floor(first / BLOCK) * PRODUCTS_PER_BLOCK + SLOTS[first % BLOCK]!.product);
  }

  const productMarketplaces = (asin: string) => [
    ...new Set(listingsOfAsin(asin).map((i) => SLOTS[i % BLOCK]!.marketplaceId)),
  ];

  return {
    seed,
    scale: fullScale,
    listingCount,
    listingAt,
    listingsIn,
    marketplaceListingCount,
    marketplaceListingAt,
    findListing,
    productByAsin,
    productMarketplaces,
    productCount,
    productAt,
  };
}

function listingStatus(rng: Rng): ListingStatus | null {
  const roll = rng.next();
  if (roll < 0.88) return 'BUYABLE';
  if (roll < 0.94) return 'DISCOVERABLE';
  if (roll < 0.97) return null;
  return 'DELETED';
}

/** A USD price in cents, converted and rounded to the marketplace's price points (…99, or tens of yen). */
function localPrice(usdCents: number, marketplace: SimMarketplace): number {
  const currency = marketplace.currencyCode;
  const major = (usdCents / 100) * FROM_USD[currency]!;
  if (minorDigits(currency) === 0) return Math.max(100, Math.round(major / 10) * 10);
  return Math.max(99, Math.round(major) * 100 - 1);
}

function ean13(twelve: string): string {
  const sum = [...twelve].reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return `${twelve}${(10 - (sum % 10)) % 10}`;
}

function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [a % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % m) + m) % m;
}
