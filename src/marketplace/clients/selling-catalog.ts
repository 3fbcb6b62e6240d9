import { pages, segment, type SellingCall } from './selling-call.js';
import {
  catalogItemSchema,
  catalogSearchResultsSchema,
  type CatalogIncludedData,
  type CatalogItem,
} from './selling-catalog-types.js';

/** searchCatalogItems takes at most this many identifiers per request. */
export const MAX_CATALOG_IDENTIFIERS = 20;

export interface CatalogItemsClient {
  /** searchCatalogItems by up to 20 identifiers in one marketplace, one array per API page. */
  searchCatalogItems(request: {
    marketplaceId: string;
    identifiers: readonly string[];
    identifiersType: 'ASIN' | 'EAN';
    includedData?: readonly CatalogIncludedData[];
  }): AsyncIterable<CatalogItem[]>;
  getCatalogItem(
    asin: string,
    marketplaceId: string,
    includedData?: readonly CatalogIncludedData[],
  ): Promise<CatalogItem>;
}

export function createCatalogItemsClient(call: SellingCall): CatalogItemsClient {
  return {
    searchCatalogItems: ({ marketplaceId, identifiers, identifiersType, includedData }) => {
      if (identifiers.length > MAX_CATALOG_IDENTIFIERS)
        throw new RangeError(`searchCatalogItems: at most ${MAX_CATALOG_IDENTIFIERS} identifiers`);
      return pages(async (pageToken) => {
        const page = await call({
          method: 'GET',
          path: '/catalog/2022-04-01/items',
          query: {
            marketplaceIds: [marketplaceId],
            identifiers,
            identifiersType,
            includedData,
            pageSize: MAX_CATALOG_IDENTIFIERS,
            pageToken,
          },
          schema: catalogSearchResultsSchema,
        });
        return { rows: page.items, next: page.pagination?.nextToken };
      });
    },
    getCatalogItem: (asin, marketplaceId, includedData) =>
      call({
        method: 'GET',
        path: `/catalog/2022-04-01/items/${segment(asin)}`,
        query: { marketplaceIds: [marketplaceId], includedData },
        schema: catalogItemSchema,
      }),
  };
}
