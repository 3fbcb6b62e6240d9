import type { z } from 'zod';
import { withAccessToken, type ConnectionOptions } from './authorized.js';
import { createHttp, endpointUrl } from './http.js';
import { queryString, type SellingCall } from './selling-call.js';
import { createDefinitionsClient, type DefinitionsClient } from './selling-definitions.js';
import { createCatalogItemsClient, type CatalogItemsClient } from './selling-catalog.js';
import { createInventoryClient, type InventoryClient } from './selling-inventory.js';
import { createListingsClient, type ListingsClient } from './selling-listings.js';
import { createNotificationsClient, type NotificationsClient } from './selling-notifications.js';
import { createOrdersClient, type OrdersClient } from './selling-orders.js';
import {
  getAccountResponseSchema,
  getMarketplaceParticipationsResponseSchema,
  type Account,
  type MarketplaceParticipation,
} from './selling-types.js';

export interface SellingClient {
  getMarketplaceParticipations(): Promise<MarketplaceParticipation[]>;
  getAccount(): Promise<Account>;
  /** Listings Items 2021-08-01. */
  listings: ListingsClient;
  /** Catalog Items 2022-04-01. */
  catalog: CatalogItemsClient;
  /** Orders v0. */
  orders: OrdersClient;
  /** FBA Inventory v1. */
  inventory: InventoryClient;
  /** Product Type Definitions 2020-09-01. */
  definitions: DefinitionsClient;
  /** Notifications v1: destinations and subscriptions. */
  notifications: NotificationsClient;
}

export function createSellingClient(options: ConnectionOptions): SellingClient {
  const http = createHttp(options.retry);
  const call: SellingCall = ({ path, query, ...request }) =>
    withAccessToken(options.lwa, options.refreshToken, (accessToken) =>
      http({
        ...request,
        api: 'selling API',
        url: endpointUrl(options.endpoint, path) + queryString(query),
        headers: { 'x-amz-access-token': accessToken },
      }),
    );
  const get = <T>(path: string, schema: z.ZodType<T>) => call({ method: 'GET', path, schema });
  return {
    async getMarketplaceParticipations() {
      return (await get('/sellers/v1/marketplaceParticipations', getMarketplaceParticipationsResponseSchema)).payload;
    },
    async getAccount() {
      return (await get('/sellers/v1/account', getAccountResponseSchema)).payload;
    },
    listings: createListingsClient(call),
    catalog: createCatalogItemsClient(call),
    orders: createOrdersClient(call),
    inventory: createInventoryClient(call),
    definitions: createDefinitionsClient(call, http),
    notifications: createNotificationsClient(call),
  };
}
