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

/** Every data sync the worker schedules per connected account. One import per sync; add yours. */
export const syncJobs: SyncJobDefinition[] = [
  economicsSync,
  listingsSync,
  catalogSync,
  ordersSync,
  inventorySync,
  adsEntitiesSync,
  adsCampaignMetrics,
  adsTargetingMetrics,
  searchQuerySync,
  couponsSync,
  promotionsSync,
  vendorMetricsSync,
];
