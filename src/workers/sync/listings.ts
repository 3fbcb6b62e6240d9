import { LISTINGS_DATASET } from '../../projections/observed/listings.js';
import type { SyncJobDefinition } from './job.js';
import { syncPerMarketplace } from './listings-context.js';

// Listings per marketplace (dataset `listings`, scope the marketplace id): searchListingsItems
// with everything a listing row needs, one recorded page per API page of up to 20 items.

export const listingsSync: SyncJobDefinition = {
  name: 'listings',
  everyMs: 3_600_000,
  run: (deps, account_id) =>
    syncPerMarketplace(deps, account_id, LISTINGS_DATASET, (selling, marketplaceId) =>
      selling.client.listings.searchListingsItems(selling.sellerId, marketplaceId, {
        includedData: ['summaries', 'attributes', 'offers', 'fulfillmentAvailability', 'issues'],
        pageSize: 20,
      }),
    ),
};
