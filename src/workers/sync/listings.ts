import { LISTINGS_DATASET } from '../../projections/observed/listings.js';
import type { SyncJobDefinition } from './job.js';
import { sellingContext } from './listings-context.js';
import { syncScope } from './scope.js';

// Listings per marketplace (dataset `listings`, scope the marketplace id): searchListingsItems
// with everything a listing row needs, one recorded page per API page of up to 20 items.

export const listingsSync: SyncJobDefinition = {
  name: 'listings',
  everyMs: 3_600_000,
  async run(deps, account_id) {
    const selling = await sellingContext(deps, account_id);
    if (!selling) return { recorded: 0 };
    let recorded = 0;
    for (const marketplaceId of selling.marketplaces) {
      const pages = selling.client.listings.searchListingsItems(selling.sellerId, marketplaceId, {
        includedData: ['summaries', 'attributes', 'offers', 'fulfillmentAvailability', 'issues'],
        pageSize: 20,
      });
      recorded += (await syncScope(deps.ctx, { account_id, dataset: LISTINGS_DATASET, scope: marketplaceId }, pages, deps.now)).recorded;
    }
    return { recorded };
  },
};
