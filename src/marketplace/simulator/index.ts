export {
  configuredLwaClient,
  createSimulator,
  DEFAULT_LWA_CLIENT,
  endpointsAt,
  type MarketplaceEndpoints,
  type Simulator,
  type SimulatorOptions,
} from './app.js';
export { eventsOptionsFrom, type EventsOptions } from './events/index.js';
export { FAULT_KINDS, type FaultKind, type FaultRule, type FaultRuleInput } from './faults.js';
export { MARKETPLACES, type SimMarketplace } from './marketplaces.js';
export type { LoggedRequest } from './request-log.js';
export type { FictionalSeller } from './seller.js';
export { DEMO_REFRESH_TOKENS, type LwaCredential } from './tokens.js';
export {
  BENCH_SCALE,
  catalogFor,
  CONDITION_TOKENS,
  DEMO_SCALE,
  formatAmount,
  minorDigits,
  type Catalog,
  type CatalogProduct,
  type ConditionFamily,
  type FulfillmentChannel,
  type ListingStatus,
  type Scale,
  type SimListing,
} from './catalog.js';
