import { pages, type SellingCall } from './selling-call.js';
import { getInventorySummariesResponseSchema, type InventorySummary } from './selling-inventory-types.js';

export interface InventoryClient {
  /** getInventorySummaries at marketplace granularity, with details, one array per API page. */
  inventorySummaries(marketplaceId: string): AsyncIterable<InventorySummary[]>;
}

export function createInventoryClient(call: SellingCall): InventoryClient {
  return {
    inventorySummaries: (marketplaceId) =>
      pages(async (nextToken) => {
        const response = await call({
          method: 'GET',
          path: '/fba/inventory/v1/summaries',
          query: {
            details: true,
            granularityType: 'Marketplace',
            granularityId: marketplaceId,
            marketplaceIds: [marketplaceId],
            nextToken,
          },
          schema: getInventorySummariesResponseSchema,
        });
        return { rows: response.payload.inventorySummaries, next: response.pagination?.nextToken };
      }),
  };
}
