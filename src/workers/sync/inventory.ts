import { INVENTORY_DATASET } from '../../projections/observed/inventory.js';
import type { SyncJobDefinition } from './job.js';
import { sellingContext } from './listings-context.js';
import { syncScope } from './scope.js';

// FBA inventory per marketplace (dataset `fba_inventory`, scope the marketplace id):
// getInventorySummaries with details, one recorded page per API page.

export const inventorySync: SyncJobDefinition = {
  name: 'fba-inventory',
  everyMs: 3_600_000,
  async run(deps, account_id) {
    const selling = await sellingContext(deps, account_id);
    if (!selling) return { recorded: 0 };
    let recorded = 0;
    for (const marketplaceId of selling.marketplaces) {
      const pages = selling.client.inventory.inventorySummaries(marketplaceId);
      recorded += (await syncScope(deps.ctx, { account_id, dataset: INVENTORY_DATASET, scope: marketplaceId }, pages, deps.now)).recorded;
    }
    return { recorded };
  },
};
