import { sellingEvent, SAMPLE, type EventContract } from './envelope.js';

// The order notifications (PascalCase): ORDER_CHANGE, and for Amazon-fulfilled orders the
// outbound shipment and multi-channel fulfillment order statuses.

export const orderChange: EventContract = sellingEvent(
  'ORDER_CHANGE',
  '1.0',
  {
    OrderChangeNotification: {
      NotificationLevel: 'OrderLevel',
      SellerId: SAMPLE.sellerId,
      AmazonOrderId: SAMPLE.orderId,
      OrderChangeType: 'OrderStatusChange',
      OrderChangeTrigger: { TimeOfOrderChange: SAMPLE.at, ChangeReason: 'Order status changed' },
      Summary: {
        MarketplaceId: SAMPLE.marketplaceId,
        OrderStatus: 'Unshipped',
        PurchaseDate: '2026-05-20T13:44:33Z',
        FulfillmentType: 'MFN',
        OrderType: 'StandardOrder',
        NumberOfItemsShipped: 0,
        NumberOfItemsUnshipped: 2,
        OrderPrograms: ['Business'],
        OrderItems: [
          {
            OrderItemId: '82886417988500',
            SellerSKU: SAMPLE.sku,
            OrderItemStatus: 'Unshipped',
            Quantity: 2,
            QuantityShipped: 0,
          },
        ],
      },
    },
  },
  {
    'OrderChangeNotification.Summary.OrderStatus': {
      description: 'Pending, Unshipped, PartiallyShipped, Shipped, Canceled',
    },
    'OrderChangeNotification.Summary.FulfillmentType': { description: 'AFN (Amazon fulfils) or MFN (you do)' },
    'OrderChangeNotification.Summary.OrderPrograms': {
      optional: true,
      description: 'present for orders in a program, e.g. Business',
    },
    'OrderChangeNotification.Summary.OrderItems': {
      description: 'one entry per order line; the run is for the listing of one SellerSKU',
    },
    'OrderChangeNotification.Summary.OrderItems[].Quantity': { unit: 'units' },
    'OrderChangeNotification.Summary.OrderItems[].QuantityShipped': { unit: 'units' },
  },
);

export const fbaOutboundShipmentStatus: EventContract = sellingEvent(
  'FBA_OUTBOUND_SHIPMENT_STATUS',
  '1.0',
  {
    FBAOutboundShipmentStatusNotification: {
      SellerId: SAMPLE.sellerId,
      AmazonOrderId: SAMPLE.orderId,
      AmazonShipmentId: 'D51234567',
      ShipmentStatus: 'Shipped',
    },
  },
  { 'FBAOutboundShipmentStatusNotification.ShipmentStatus': { description: 'Created, Shipped, Cancelled' } },
);

export const fulfillmentOrderStatus: EventContract = sellingEvent(
  'FULFILLMENT_ORDER_STATUS',
  '1.0',
  {
    FulfillmentOrderStatusNotification: {
      SellerId: SAMPLE.sellerId,
      EventType: 'Order',
      StatusUpdatedDateTime: SAMPLE.at,
      SellerFulfillmentOrderId: `MCF-${SAMPLE.orderId}`,
      FulfillmentOrderStatus: 'COMPLETE',
      FulfillmentShipment: { FulfillmentShipmentStatus: 'SHIPPED', AmazonShipmentId: 'D51234567' },
    },
  },
  {
    'FulfillmentOrderStatusNotification.FulfillmentOrderStatus': {
      description: 'RECEIVED, PROCESSING, COMPLETE, CANCELLED, ...',
    },
    'FulfillmentOrderStatusNotification.FulfillmentShipment': {
      optional: true,
      description: 'present once a shipment exists',
    },
  },
);
