import type { HttpAnswer } from './http.js';
import { pages, segment, type SellingCall } from './selling-call.js';
import {
  listingItemSchema,
  listingSearchResultsSchema,
  listingSubmissionResponseSchema,
  type ListingIncludedData,
  type ListingItem,
  type ListingsItemPatchRequest,
  type ListingSubmissionResponse,
} from './selling-listings-types.js';

export interface ListingsClient {
  getListingsItem(
    sellerId: string,
    sku: string,
    marketplaceId: string,
    includedData?: readonly ListingIncludedData[],
  ): Promise<ListingItem>;
  /** searchListingsItems for one marketplace, one array of items per API page (pageSize ≤ 20). */
  searchListingsItems(
    sellerId: string,
    marketplaceId: string,
    options?: { includedData?: readonly ListingIncludedData[]; pageSize?: number },
  ): AsyncIterable<ListingItem[]>;
  /** patchListingsItem. Not idempotent: retried only when throttled (nothing was applied). */
  patchListingsItem(
    sellerId: string,
    sku: string,
    marketplaceId: string,
    request: ListingsItemPatchRequest,
    options?: { mode?: 'VALIDATION_PREVIEW'; onAnswer?: (answer: HttpAnswer) => void },
  ): Promise<ListingSubmissionResponse>;
}

export function createListingsClient(call: SellingCall): ListingsClient {
  const itemPath = (sellerId: string, sku: string) => `/listings/2021-08-01/items/${segment(sellerId)}/${segment(sku)}`;
  return {
    getListingsItem: (sellerId, sku, marketplaceId, includedData) =>
      call({
        method: 'GET',
        path: itemPath(sellerId, sku),
        query: { marketplaceIds: [marketplaceId], includedData },
        schema: listingItemSchema,
      }),
    searchListingsItems: (sellerId, marketplaceId, { includedData, pageSize = 20 } = {}) =>
      pages(async (pageToken) => {
        const page = await call({
          method: 'GET',
          path: `/listings/2021-08-01/items/${segment(sellerId)}`,
          query: { marketplaceIds: [marketplaceId], includedData, pageSize, pageToken },
          schema: listingSearchResultsSchema,
        });
        return { rows: page.items, next: page.pagination?.nextToken };
      }),
    patchListingsItem: (sellerId, sku, marketplaceId, request, { mode, onAnswer } = {}) =>
      call({
        method: 'PATCH',
        path: itemPath(sellerId, sku),
        query: { marketplaceIds: [marketplaceId], mode },
        json: request,
        schema: listingSubmissionResponseSchema,
        ...(onAnswer ? { onAnswer } : {}),
      }),
  };
}
