import type { SyncJobDefinition } from './job.js';
import { syncPerMarketplace } from './listings-context.js';
import { INVENTORY_DATASET } from '../../domain/observation/datasets.js';

// FBA inventory per marketplace (dataset `fba_inventory`, scope the marketplace id):
// getInventorySummaries with details, one recorded page per API page.

export const inventorySync: SyncJobDefinition = {
  name: 'fba-inventory',
  everyMs: 3_600_000,
  run: (deps, account_id) =>
    syncPerMarketplace(deps, account_id, INVENTORY_DATASET, (selling, marketplaceId) =>
      selling.client.inventory.inventorySummaries(marketplaceId),
    ),
};
