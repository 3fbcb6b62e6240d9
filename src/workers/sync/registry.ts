import type { SyncJobDefinition } from './job.js';
import { economicsSync } from './reports-economics.js';
import { catalogSync } from './catalog.js';
import { inventorySync } from './inventory.js';
import { listingsSync } from './listings.js';
import { ordersSync } from './orders.js';
import { adsCampaignMetrics, adsTargetingMetrics } from './ads-metrics.js';
import { adsEntitiesSync } from './ads-entities.js';
import { searchQuerySync } from './reports-sqp.js';
import { couponsSync, promotionsSync } from './reports-deals.js';
import { vendorMetricsSync } from './reports-vendor.js';

/** What an account is: its listings, inventory, catalog items and ads entities (a few calls each). */
const ENTITIES: SyncJobDefinition[] = [listingsSync, catalogSync, inventorySync, adsEntitiesSync];

/** Its history, from reports (a first run reads a year): queued behind the entity syncs of every
 * account, so a newly connected account shows its listings and campaigns before an older one's
 * year of orders and metrics is read. */
const HISTORY: SyncJobDefinition[] = [
  economicsSync,
  ordersSync,
  adsCampaignMetrics,
  adsTargetingMetrics,
  searchQuerySync,
  couponsSync,
  promotionsSync,
  vendorMetricsSync,
];

/** Every data sync the worker schedules per connected account. One import per sync; add yours. */
export const syncJobs: SyncJobDefinition[] = [...ENTITIES, ...HISTORY.map((job) => ({ ...job, priority: 10 }))];
