import { syncWith } from './job.js';
import { sellingContext, syncPerMarketplace } from './listings-context.js';
import { INVENTORY_DATASET } from '../../domain/observation/datasets.js';

// FBA inventory per marketplace (dataset `fba_inventory`, scope the marketplace id):
// getInventorySummaries with details, one recorded page per API page.

export const inventorySync = syncWith(sellingContext, {
  name: 'fba-inventory',
  everyMs: 3_600_000,
  run: (deps, account_id, selling) =>
    syncPerMarketplace(deps, account_id, selling, INVENTORY_DATASET, (marketplaceId) =>
      selling.client.inventory.inventorySummaries(marketplaceId),
    ),
});
