import { pages, segment, type SellingCall } from './selling-call.js';
import {
  getOrderItemsResponseSchema,
  getOrdersResponseSchema,
  type Order,
  type OrderItem,
} from './selling-orders-types.js';

export type OrdersWindow =
  { createdAfter: string; createdBefore?: string } | { lastUpdatedAfter: string; lastUpdatedBefore?: string };

export interface OrdersClient {
  /** getOrders in a creation or last-update window (ISO 8601), one array per API page (≤ 100 orders). */
  getOrders(
    request: { marketplaceIds: readonly string[]; maxResultsPerPage?: number } & OrdersWindow,
  ): AsyncIterable<Order[]>;
  /** getOrderItems, every page of it. */
  getOrderItems(amazonOrderId: string): Promise<OrderItem[]>;
}

export function createOrdersClient(call: SellingCall): OrdersClient {
  return {
    getOrders: ({ marketplaceIds, maxResultsPerPage = 100, ...window }) =>
      pages(async (NextToken) => {
        // With a NextToken the provider takes every other criterion from the token.
        const criteria = NextToken
          ? { NextToken }
          : 'createdAfter' in window
            ? {
                MarketplaceIds: marketplaceIds,
                MaxResultsPerPage: maxResultsPerPage,
                CreatedAfter: window.createdAfter,
                CreatedBefore: window.createdBefore,
              }
            : {
                MarketplaceIds: marketplaceIds,
                MaxResultsPerPage: maxResultsPerPage,
                LastUpdatedAfter: window.lastUpdatedAfter,
                LastUpdatedBefore: window.lastUpdatedBefore,
              };
        const { payload } = await call({
          method: 'GET',
          path: '/orders/v0/orders',
          query: criteria,
          schema: getOrdersResponseSchema,
        });
        return { rows: payload.Orders, next: payload.NextToken };
      }),
    async getOrderItems(amazonOrderId) {
      const items: OrderItem[] = [];
      for await (const page of pages(async (NextToken) => {
        const { payload } = await call({
          method: 'GET',
          path: `/orders/v0/orders/${segment(amazonOrderId)}/orderItems`,
          query: { NextToken },
          schema: getOrderItemsResponseSchema,
        });
        return { rows: payload.OrderItems, next: payload.NextToken };
      })) {
        items.push(...page);
      }
      return items;
    },
  };
}
