import type { FastifyInstance } from 'fastify';
import { sellingError } from '../api-errors.js';
import { rngFor } from '../catalog.js';
import { MARKETPLACES } from '../marketplaces.js';
import { sellingRoute, type TokenStore } from '../tokens.js';
import { fnSkuOf } from './listings.js';
import type { LiveListing, ListingsState } from './listings-state.js';
import { decodeToken, encodeToken, isMarketplaceCursor, type MarketplaceCursor } from './page-token.js';

// FBA Inventory API v1 getInventorySummaries, marketplace granularity: one summary per FBA
// listing of the marketplace, quantities generated per listing from the seed and moved by the
// live market (stock received or lost), so the API and the inventory notifications agree.

const PAGE_SIZE = 50;
const STREAM_INVENTORY = 48;

type Query = Record<string, string | undefined>;

export interface FbaQuantities {
  fulfillable: number;
  inboundWorking: number;
  inboundShipped: number;
  inboundReceiving: number;
  pendingCustomerOrders: number;
  pendingTransshipment: number;
  fcProcessing: number;
  customerDamaged: number;
  warehouseDamaged: number;
  defective: number;
  researching: number;
}

export interface FbaStock {
  quantities(listing: LiveListing): FbaQuantities;
  /** Fulfillable units change by `delta` (never below zero). */
  move(listing: LiveListing, delta: number): FbaQuantities;
}

export function createFbaStock(seed: number): FbaStock {
  const moved = new Map<string, number>();
  const keyOf = (l: LiveListing) => `${l.marketplaceId}/${l.sku}`;
  function quantities(listing: LiveListing): FbaQuantities {
    const rng = rngFor(seed, STREAM_INVENTORY, listing.index);
    const fulfillable = rng.next() < 0.1 ? 0 : rng.int(1, 400);
    return {
      fulfillable: Math.max(0, fulfillable + (moved.get(keyOf(listing)) ?? 0)),
      inboundWorking: rng.next() < 0.3 ? rng.int(10, 200) : 0,
      inboundShipped: rng.next() < 0.3 ? rng.int(10, 200) : 0,
      inboundReceiving: rng.next() < 0.2 ? rng.int(1, 50) : 0,
      pendingCustomerOrders: rng.int(0, 10),
      pendingTransshipment: rng.int(0, 5),
      fcProcessing: rng.int(0, 3),
      customerDamaged: rng.int(0, 2),
      warehouseDamaged: rng.int(0, 2),
      defective: rng.int(0, 1),
      researching: rng.int(0, 2),
    };
  }
  return {
    quantities,
    move(listing, delta) {
      const now = quantities(listing).fulfillable;
      moved.set(keyOf(listing), (moved.get(keyOf(listing)) ?? 0) + Math.max(delta, -now));
      return quantities(listing);
    },
  };
}

export function registerInventory(
  app: FastifyInstance,
  tokens: TokenStore,
  state: ListingsState,
  stock: FbaStock,
): void {
  const route = sellingRoute(tokens);
  app.get<{ Querystring: Query }>('/fba/inventory/v1/summaries', route, async (request, reply) => {
    reply.header('x-amzn-RateLimit-Limit', '2');
    const q = request.query;
    const invalid = (message: string) => reply.code(400).send(sellingError('InvalidInput', message));
    if (q.granularityType !== 'Marketplace') return invalid('granularityType must be Marketplace.');
    const marketplaceId = q.granularityId;
    if (!MARKETPLACES.some((m) => m.id === marketplaceId)) return invalid('granularityId must be a marketplace id.');
    if (q.marketplaceIds !== marketplaceId) return invalid('marketplaceIds must be the marketplace of granularityId.');
    if (q.sellerSkus !== undefined || q.sellerSku !== undefined || q.startDateTime !== undefined)
      return invalid('The simulator supports no SKU or start-date filter.');
    let k = 0;
    if (q.nextToken !== undefined) {
      const cursor = decodeToken(q.nextToken, isMarketplaceCursor);
      if (!cursor || cursor.marketplaceId !== marketplaceId) return invalid('Invalid nextToken.');
      k = cursor.k;
    }
    const details = q.details === 'true';
    const total = state.catalog.marketplaceListingCount(marketplaceId!);
    const summaries = [];
    for (; k < total && summaries.length < PAGE_SIZE; k++) {
      const listing = state.live(state.catalog.marketplaceListingAt(marketplaceId!, k));
      if (listing.fulfillmentChannel === 'FBA')
        summaries.push(inventorySummary(listing, stock.quantities(listing), details));
    }
    return {
      // Only when more remain; the last page has no nextToken.
      ...(k < total
        ? { pagination: { nextToken: encodeToken({ marketplaceId: marketplaceId!, k } satisfies MarketplaceCursor) } }
        : {}),
      payload: {
        granularity: { granularityType: 'Marketplace', granularityId: marketplaceId },
        inventorySummaries: summaries,
      },
    };
  });
}

const CONDITIONS: Readonly<Record<string, string>> = {
  new_new: 'NewItem',
  new_open_box: 'NewOpenBox',
  new_oem: 'NewOEM',
  used_like_new: 'UsedLikeNew',
  used_very_good: 'UsedVeryGood',
  used_good: 'UsedGood',
  used_acceptable: 'UsedAcceptable',
  collectible_like_new: 'CollectibleLikeNew',
  collectible_very_good: 'CollectibleVeryGood',
  collectible_good: 'CollectibleGood',
  collectible_acceptable: 'CollectibleAcceptable',
  refurbished_refurbished: 'Refurbished',
  club_club: 'Club',
};

function inventorySummary(listing: LiveListing, q: FbaQuantities, details: boolean) {
  const {
    fulfillable,
    inboundWorking,
    inboundShipped,
    inboundReceiving,
    pendingCustomerOrders,
    pendingTransshipment,
    fcProcessing,
    customerDamaged,
    warehouseDamaged,
    defective,
    researching,
  } = q;
  const reserved = pendingCustomerOrders + pendingTransshipment + fcProcessing;
  const unfulfillable = customerDamaged + warehouseDamaged + defective;
  return {
    asin: listing.asin,
    fnSku: fnSkuOf(listing),
    sellerSku: listing.sku,
    condition: CONDITIONS[listing.conditionType] ?? 'NewItem',
    ...(details
      ? {
          inventoryDetails: {
            fulfillableQuantity: fulfillable,
            inboundWorkingQuantity: inboundWorking,
            inboundShippedQuantity: inboundShipped,
            inboundReceivingQuantity: inboundReceiving,
            reservedQuantity: {
              totalReservedQuantity: reserved,
              pendingCustomerOrderQuantity: pendingCustomerOrders,
              pendingTransshipmentQuantity: pendingTransshipment,
              fcProcessingQuantity: fcProcessing,
            },
            researchingQuantity: {
              totalResearchingQuantity: researching,
              researchingQuantityBreakdown: [
                { name: 'researchingQuantityInShortTerm', quantity: researching },
                { name: 'researchingQuantityInMidTerm', quantity: 0 },
                { name: 'researchingQuantityInLongTerm', quantity: 0 },
              ],
            },
            unfulfillableQuantity: {
              totalUnfulfillableQuantity: unfulfillable,
              customerDamagedQuantity: customerDamaged,
              warehouseDamagedQuantity: warehouseDamaged,
              distributorDamagedQuantity: 0,
              carrierDamagedQuantity: 0,
              defectiveQuantity: defective,
              expiredQuantity: 0,
            },
          },
        }
      : {}),
    lastUpdatedTime: listing.lastUpdatedAt.replace(/\.\d{3}Z$/, 'Z'),
    productName: listing.title,
    totalQuantity:
      fulfillable + inboundWorking + inboundShipped + inboundReceiving + reserved + unfulfillable + researching,
    stores: [],
  };
}
