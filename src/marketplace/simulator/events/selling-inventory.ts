import type { FbaQuantities } from '../selling/inventory.js';
import type { LiveListing } from '../selling/listings-state.js';

// FBA_INVENTORY_AVAILABILITY_CHANGES (PascalCase, flat payload per its schema) for one FBA
// listing, from the quantities the FBA Inventory API reports for it.

export const fbaInventoryAvailabilityChange = (sellerId: string, l: LiveListing, fnSku: string, q: FbaQuantities) => ({
  SellerId: sellerId,
  FNSKU: fnSku,
  ASIN: l.asin,
  SKU: l.sku,
  FulfillmentInventoryByMarketplace: [
    {
      MarketplaceId: l.marketplaceId,
      ItemName: l.title,
      FulfillmentInventory: {
        InboundQuantityBreakdown: {
          Working: q.inboundWorking,
          Shipped: q.inboundShipped,
          Receiving: q.inboundReceiving,
        },
        Fulfillable: q.fulfillable,
        Unfulfillable: q.customerDamaged + q.warehouseDamaged + q.defective,
        Researching: q.researching,
        ReservedQuantityBreakdown: {
          WarehouseProcessing: q.fcProcessing,
          WarehouseTransfer: q.pendingTransshipment,
          PendingCustomerOrder: q.pendingCustomerOrders,
        },
        FutureSupplyBuyable: 0,
        PendingCustomerOrderInTransit: 0,
      },
    },
  ],
});
