import type { SellingClient } from '../../marketplace/clients/index.js';
import { MAX_CATALOG_IDENTIFIERS } from '../../marketplace/clients/selling-catalog.js';
import { listedAsins } from '../../projections/observed/listings.js';
import { syncWith } from './job.js';
import { sellingContext, syncPerMarketplace } from './listings-context.js';
import { CATALOG_DATASET } from '../../domain/observation/datasets.js';

// Catalog items of the ASINs the account lists (dataset `catalog_items`, scope the marketplace
// id): the listed ASINs in order, 20 per searchCatalogItems request, one recorded page each.
// It reads the ASINs from the listings read model, so it follows the listings sync (and fails,
// to be retried, until that has read the marketplace once).

export const catalogSync = syncWith(sellingContext, {
  name: 'catalog-items',
  everyMs: 24 * 3_600_000,
  run: (deps, account_id, selling) =>
    syncPerMarketplace(deps, account_id, selling, CATALOG_DATASET, async (marketplaceId) => {
      const asins = await listedAsins(deps.db, account_id, marketplaceId);
      // Scheduled together with the listings sync: wait for it rather than record an empty catalog.
      if (asins === null) throw new Error(`the listings of ${marketplaceId} have not been read yet`);
      return catalogPages(selling.client, marketplaceId, asins);
    }),
});

async function* catalogPages(
  client: SellingClient,
  marketplaceId: string,
  asins: readonly string[],
): AsyncIterable<unknown[]> {
  for (let i = 0; i < asins.length; i += MAX_CATALOG_IDENTIFIERS) {
    const identifiers = asins.slice(i, i + MAX_CATALOG_IDENTIFIERS);
    const items: unknown[] = [];
    for await (const page of client.catalog.searchCatalogItems({
      marketplaceId,
      identifiers,
      identifiersType: 'ASIN',
      includedData: ['summaries', 'identifiers', 'attributes', 'productTypes', 'salesRanks', 'images'],
    })) {
      items.push(...page);
    }
    yield items;
  }
}
