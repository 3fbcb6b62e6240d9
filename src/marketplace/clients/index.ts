export { createAdsClient, type AdsClient, type AdsClientOptions } from './ads.js';
export type { Profile } from './ads-types.js';
export { MarketplaceError } from './errors.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './http.js';
export { createLwaClient, type LwaClient, type LwaClientOptions } from './lwa.js';
export { createSellingClient, type SellingClient, type SellingClientOptions } from './selling.js';
export type { Account, Marketplace, MarketplaceParticipation } from './selling-types.js';
