export { createAdsClient, type AdsClient } from './ads.js';
export type { ConnectionOptions } from './authorized.js';
export type { Profile } from './ads-types.js';
export { MarketplaceError } from './errors.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './http.js';
export { createLwaClient, type LwaClient, type LwaClientOptions } from './lwa.js';
export { createSellingClient, type SellingClient } from './selling.js';
export type { Account, Marketplace, MarketplaceParticipation } from './selling-types.js';
export type { CatalogItemsClient } from './selling-catalog.js';
export type { CatalogItem } from './selling-catalog-types.js';
export type { InventoryClient } from './selling-inventory.js';
export type { InventorySummary } from './selling-inventory-types.js';
export type { ListingsClient } from './selling-listings.js';
export type {
  ListingIncludedData,
  ListingItem,
  ListingPatchOperation,
  ListingsItemPatchRequest,
  ListingSubmissionResponse,
} from './selling-listings-types.js';
export type { OrdersClient, OrdersWindow } from './selling-orders.js';
export type { Order, OrderItem } from './selling-orders-types.js';
export type { DefinitionsClient } from './selling-definitions.js';
export type { ProductTypeDefinition, ProductTypeList } from './selling-definitions-types.js';
export type { NotificationsClient } from './selling-notifications.js';
export type {
  CreateSubscriptionRequest,
  Destination,
  DestinationResourceSpecification,
  Subscription,
} from './selling-notifications-types.js';
export type { StreamsClient } from './ads-streams.js';
export type { CreateStreamSubscriptionRequest, StreamDestination, StreamSubscription } from './ads-streams-types.js';
