import { sellingEvent, SAMPLE, type EventContract } from './envelope.js';

// The listing notifications (PascalCase, flat payloads): status, issues, merchant-fulfilled
// quantity, brand content, and FBA inventory availability.

export const listingsItemStatusChange: EventContract = sellingEvent(
  'LISTINGS_ITEM_STATUS_CHANGE',
  '1.0',
  {
    SellerId: SAMPLE.sellerId,
    MarketplaceId: SAMPLE.marketplaceId,
    Asin: SAMPLE.asin,
    Sku: SAMPLE.sku,
    CreatedDate: '2025-02-28T07:03:04Z',
    Status: ['BUYABLE', 'DISCOVERABLE'],
  },
  {
    Status: { description: 'the statuses now: BUYABLE, DISCOVERABLE; empty when neither (DELETED when removed)' },
    CreatedDate: { description: 'when the listing was created (ISO 8601)' },
  },
);

export const listingsItemIssuesChange: EventContract = sellingEvent(
  'LISTINGS_ITEM_ISSUES_CHANGE',
  '1.0',
  {
    SellerId: SAMPLE.sellerId,
    MarketplaceId: SAMPLE.marketplaceId,
    Asin: SAMPLE.asin,
    Sku: SAMPLE.sku,
    Severities: ['ERROR'],
    EnforcementActions: ['SEARCH_SUPPRESSED'],
  },
  {
    Severities: { description: 'severities of the open issues: ERROR, WARNING, INFO; empty when none' },
    EnforcementActions: {
      description: 'what the marketplace does about them, e.g. SEARCH_SUPPRESSED; empty when none',
    },
  },
);

export const listingsItemMfnQuantityChange: EventContract = sellingEvent(
  'LISTINGS_ITEM_MFN_QUANTITY_CHANGE',
  '1.0',
  { SellerId: SAMPLE.sellerId, FulfillmentChannelCode: 'DEFAULT', Sku: SAMPLE.sku, Quantity: 115 },
  {
    FulfillmentChannelCode: { description: 'DEFAULT: merchant-fulfilled' },
    Quantity: { unit: 'units', description: 'the available quantity now' },
  },
);

export const brandedItemContentChange: EventContract = sellingEvent(
  'BRANDED_ITEM_CONTENT_CHANGE',
  '1.0',
  {
    MarketplaceId: SAMPLE.marketplaceId,
    BrandName: 'Copperleaf',
    Asin: SAMPLE.asin,
    AttributesChanged: ['item_name'],
  },
  {
    AttributesChanged: {
      description: 'attribute names whose detail page content changed (item_name, bullet_point, ...)',
    },
  },
);

const units = { unit: 'units' };

export const fbaInventoryAvailabilityChanges: EventContract = sellingEvent(
  'FBA_INVENTORY_AVAILABILITY_CHANGES',
  '1.0',
  {
    SellerId: SAMPLE.sellerId,
    FNSKU: 'X00EXAMPLE1',
    ASIN: SAMPLE.asin,
    SKU: SAMPLE.sku,
    FulfillmentInventoryByMarketplace: [
      {
        MarketplaceId: SAMPLE.marketplaceId,
        ItemName: SAMPLE.title,
        FulfillmentInventory: {
          InboundQuantityBreakdown: { Working: 143, Shipped: 123, Receiving: 0 },
          Fulfillable: 361,
          Unfulfillable: 2,
          Researching: 0,
          ReservedQuantityBreakdown: { WarehouseProcessing: 3, WarehouseTransfer: 3, PendingCustomerOrder: 10 },
          FutureSupplyBuyable: 0,
          PendingCustomerOrderInTransit: 0,
        },
      },
    ],
  },
  {
    FulfillmentInventoryByMarketplace: {
      description: 'one entry per marketplace of the region; the run is for the listing of its MarketplaceId',
    },
    'FulfillmentInventoryByMarketplace[].FulfillmentInventory.Fulfillable': {
      ...units,
      description: 'units that can be sold now',
    },
    'FulfillmentInventoryByMarketplace[].FulfillmentInventory.Unfulfillable': units,
    'FulfillmentInventoryByMarketplace[].FulfillmentInventory.Researching': units,
    'FulfillmentInventoryByMarketplace[].FulfillmentInventory.FutureSupplyBuyable': units,
    'FulfillmentInventoryByMarketplace[].FulfillmentInventory.PendingCustomerOrderInTransit': units,
  },
);
