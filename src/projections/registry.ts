import { accountsProjection } from './accounts/projection.js';
import { authProjection } from './auth/projection.js';
import { observationsProjection } from './observations/projection.js';
import type { Projection } from './projection.js';
import { economicsProjection } from './observed/economics.js';
import { catalogItemsProjection } from './observed/catalog.js';
import { fbaInventoryProjection } from './observed/inventory.js';
import { listingsProjection } from './observed/listings.js';
import { ordersProjection } from './observed/orders.js';
import { adsProjection } from './observed/ads.js';
import { searchQueryProjection } from './observed/search_query.js';
import { couponsProjection } from './observed/coupons.js';
import { promotionsProjection } from './observed/promotions.js';
import { vendorProjection } from './observed/vendor.js';
import { automationsProjection } from './automations/projection.js';
import { streamsProjection } from './streams/projection.js';
import { mutationsProjection } from './mutations/projection.js';
import { admissionProjection } from './admission/projection.js';
import { eventsProjection } from './events/projection.js';
import { webhooksProjection } from './webhook/projection.js';
import { webhookDeliveriesProjection } from './webhook/deliveries.js';
import { automationRunsProjection } from './automation-runs/projection.js';
import { automationStoreProjection } from './automation-store/projection.js';
import { backtestsProjection } from './backtests/projection.js';
import { feedbackProjection } from './feedback/projection.js';
import { reportsProjection } from './reports/projection.js';
import { alertsProjection } from './alerts/projection.js';

/**
 * Every projection the service runs, migrates and can rebuild. One import per projection;
 * add yours to the array.
 */
export const projections: Projection[] = [
  authProjection,
  accountsProjection,
  observationsProjection,
  economicsProjection,
  listingsProjection,
  catalogItemsProjection,
  ordersProjection,
  fbaInventoryProjection,
  adsProjection,
  searchQueryProjection,
  couponsProjection,
  promotionsProjection,
  vendorProjection,
  mutationsProjection,
  admissionProjection,
  eventsProjection,
  automationsProjection,
  streamsProjection,
  webhooksProjection,
  webhookDeliveriesProjection,
  automationRunsProjection,
  automationStoreProjection,
  feedbackProjection,
  reportsProjection,
  backtestsProjection,
  alertsProjection,
];
