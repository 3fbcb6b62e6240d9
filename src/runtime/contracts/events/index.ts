import {
  accountStatusChanged,
  detailPageTrafficEvent,
  feedProcessingFinished,
  itemSalesEventChange,
} from './account.js';
import {
  adChange,
  adGroupChange,
  budgetUsage,
  campaignChange,
  spConversion,
  spTraffic,
  targetChange,
} from './ads-stream.js';
import type { EventContract } from './envelope.js';
import {
  brandedItemContentChange,
  fbaInventoryAvailabilityChanges,
  listingsItemIssuesChange,
  listingsItemMfnQuantityChange,
  listingsItemStatusChange,
} from './listings.js';
import { anyOfferChanged, b2bAnyOfferChanged, pricingHealth } from './offers.js';
import { fbaOutboundShipmentStatus, fulfillmentOrderStatus, orderChange } from './orders.js';
import { adsReportCompleted, sellingReportCompleted } from './reports.js';

export type { EventContract } from './envelope.js';

/** The event contract of each of the 24 selectable types. */
export const EVENT_CONTRACTS: Readonly<Record<string, EventContract>> = {
  ANY_OFFER_CHANGED: anyOfferChanged,
  B2B_ANY_OFFER_CHANGED: b2bAnyOfferChanged,
  PRICING_HEALTH: pricingHealth,
  LISTINGS_ITEM_STATUS_CHANGE: listingsItemStatusChange,
  LISTINGS_ITEM_ISSUES_CHANGE: listingsItemIssuesChange,
  LISTINGS_ITEM_MFN_QUANTITY_CHANGE: listingsItemMfnQuantityChange,
  ORDER_CHANGE: orderChange,
  FBA_INVENTORY_AVAILABILITY_CHANGES: fbaInventoryAvailabilityChanges,
  ACCOUNT_STATUS_CHANGED: accountStatusChanged,
  FEED_PROCESSING_FINISHED: feedProcessingFinished,
  FBA_OUTBOUND_SHIPMENT_STATUS: fbaOutboundShipmentStatus,
  FULFILLMENT_ORDER_STATUS: fulfillmentOrderStatus,
  ITEM_SALES_EVENT_CHANGE: itemSalesEventChange,
  DETAIL_PAGE_TRAFFIC_EVENT: detailPageTrafficEvent,
  BRANDED_ITEM_CONTENT_CHANGE: brandedItemContentChange,
  BUDGET_USAGE: budgetUsage,
  SP_TRAFFIC: spTraffic,
  SP_CONVERSION: spConversion,
  CAMPAIGN_CHANGE: campaignChange,
  AD_GROUP_CHANGE: adGroupChange,
  AD_CHANGE: adChange,
  TARGET_CHANGE: targetChange,
  SELLING_REPORT_COMPLETED: sellingReportCompleted,
  ADS_REPORT_COMPLETED: adsReportCompleted,
};
