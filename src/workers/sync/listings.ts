import type { SyncJobDefinition } from './job.js';
import { retireDeletedListingTargets, liveSkus } from './listing-deletions.js';
import { syncPerMarketplace } from './listings-context.js';
import { LISTINGS_DATASET } from '../../domain/observation/datasets.js';

// Listings per marketplace (dataset `listings`, scope the marketplace id): searchListingsItems
// with everything a listing row needs, one recorded page per API page of up to 20 items. After
// each complete read, pending requests of listings it no longer shows alive are withheld.

export const listingsSync: SyncJobDefinition = {
  name: 'listings',
  everyMs: 3_600_000,
  async run(deps, account_id) {
    const live = new Map<string, Set<string>>();
    const result = await syncPerMarketplace(deps, account_id, LISTINGS_DATASET, (selling, marketplaceId) => {
      const pages = selling.client.listings.searchListingsItems(selling.sellerId, marketplaceId, {
        includedData: ['summaries', 'attributes', 'offers', 'fulfillmentAvailability', 'issues'],
        pageSize: 20,
      });
      live.set(marketplaceId, new Set());
      return liveSkus(pages, marketplaceId, live.get(marketplaceId)!);
    });
    for (const [marketplaceId, skus] of live) await retireDeletedListingTargets(deps, account_id, marketplaceId, skus);
    return result;
  },
};
