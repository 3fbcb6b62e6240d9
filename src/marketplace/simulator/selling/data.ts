import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog.js';
import type { FictionalSeller } from '../seller.js';
import type { TokenStore } from '../tokens.js';
import { registerCatalogItems } from './catalog-items.js';
import { createFbaStock, registerInventory, type FbaStock } from './inventory.js';
import { registerListings } from './listings.js';
import { createListingsState, type ListingsState } from './listings-state.js';
import { registerOrders } from './orders.js';
import { createOrdersBook, type OrdersBook } from './orders-book.js';
import { registerProductTypes } from './product-types.js';

// The seller's observed data the simulator serves: listings (with the seller's accepted
// changes), catalog items, orders and FBA inventory, all derived from the catalog; and the
// product type definitions listings are written against.

export interface SellingData {
  listings: ListingsState;
  orders: OrdersBook;
  /** FBA quantities: generated, then moved by the live market. */
  stock: FbaStock;
}

export function createSellingData(catalog: Catalog, now: () => number): SellingData {
  return {
    listings: createListingsState(catalog, now),
    orders: createOrdersBook(catalog),
    stock: createFbaStock(catalog.seed),
  };
}

/** Seller-only routes: a vendor's token is refused by `sellingAuth` (its audience differs). */
export function registerSellingData(
  app: FastifyInstance,
  seller: FictionalSeller,
  tokens: TokenStore,
  data: SellingData,
  now: () => number,
): void {
  registerListings(app, seller, tokens, data.listings);
  registerCatalogItems(app, tokens, data.listings.catalog);
  registerOrders(app, tokens, data.orders, now);
  registerInventory(app, tokens, data.listings, data.stock);
  registerProductTypes(app, tokens);
}
