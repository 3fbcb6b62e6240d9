import { minorDigits } from '../catalog.js';
import { orderAsOf, type SimOrder } from '../selling/orders-book.js';

// Payloads of the order notifications (PascalCase) from one order of the orders book, read at
// the simulator's "now": ORDER_CHANGE, and for Amazon-fulfilled orders the outbound shipment
// and fulfillment order statuses. ITEM_SALES_EVENT_CHANGE (camelCase) sums an hour of orders.

const iso = (ms: number) => new Date(ms).toISOString();

export function orderChange(sellerId: string, order: SimOrder, now: number) {
  const asOf = orderAsOf(order, now);
  const shipped = (line: number) => line < asOf.shippedLines;
  const units = (which: boolean) =>
    order.lines.filter((_, i) => shipped(i) === which).reduce((sum, l) => sum + l.quantity, 0);
  return {
    OrderChangeNotification: {
      NotificationLevel: 'OrderLevel',
      SellerId: sellerId,
      AmazonOrderId: order.amazonOrderId,
      OrderChangeType: 'OrderStatusChange',
      OrderChangeTrigger: { TimeOfOrderChange: iso(asOf.lastUpdatedAt), ChangeReason: 'Order status changed' },
      Summary: {
        MarketplaceId: order.marketplaceId,
        OrderStatus: asOf.status,
        PurchaseDate: iso(order.purchasedAt),
        FulfillmentType: order.fulfillmentChannel,
        OrderType: 'StandardOrder',
        NumberOfItemsShipped: units(true),
        NumberOfItemsUnshipped: asOf.status === 'Canceled' ? 0 : units(false),
        ...(order.isBusinessOrder ? { OrderPrograms: ['Business'] } : {}),
        OrderItems: order.lines.map((line, i) => ({
          OrderItemId: line.orderItemId,
          SellerSKU: line.listing.sku,
          OrderItemStatus: asOf.status === 'Canceled' ? 'Canceled' : shipped(i) ? 'Shipped' : 'Unshipped',
          Quantity: line.quantity,
          QuantityShipped: shipped(i) ? line.quantity : 0,
        })),
      },
    },
  };
}

/** The shipment and fulfillment order ids the marketplace gives an Amazon-fulfilled order. */
const shipmentId = (order: SimOrder) => `D${order.amazonOrderId.replace(/-/g, '').slice(-8)}`;

export function fbaOutboundShipmentStatus(sellerId: string, order: SimOrder, now: number) {
  const { status } = orderAsOf(order, now);
  return {
    FBAOutboundShipmentStatusNotification: {
      SellerId: sellerId,
      AmazonOrderId: order.amazonOrderId,
      AmazonShipmentId: shipmentId(order),
      ShipmentStatus: status === 'Canceled' ? 'Cancelled' : status === 'Shipped' ? 'Shipped' : 'Created',
    },
  };
}

const FULFILLMENT_STATUS = {
  Pending: 'RECEIVED',
  Unshipped: 'PROCESSING',
  PartiallyShipped: 'PROCESSING',
  Shipped: 'COMPLETE',
  Canceled: 'CANCELLED',
} as const;

export function fulfillmentOrderStatus(sellerId: string, order: SimOrder, now: number) {
  const asOf = orderAsOf(order, now);
  return {
    FulfillmentOrderStatusNotification: {
      SellerId: sellerId,
      EventType: 'Order',
      StatusUpdatedDateTime: iso(asOf.lastUpdatedAt),
      SellerFulfillmentOrderId: `MCF-${order.amazonOrderId}`,
      FulfillmentOrderStatus: FULFILLMENT_STATUS[asOf.status],
      ...(asOf.shippedLines > 0
        ? { FulfillmentShipment: { FulfillmentShipmentStatus: 'SHIPPED', AmazonShipmentId: shipmentId(order) } }
        : {}),
    },
  };
}

/** Ordered units and revenue per ASIN over one hour; an hour without orders lists `fallbackAsin` at zero. */
export function itemSalesEventChange(
  accountId: string,
  marketplaceId: string,
  currency: string,
  hourStart: number,
  orders: readonly SimOrder[],
  fallbackAsin: string,
) {
  const byAsin = new Map<string, { units: number; revenue: number }>();
  for (const order of orders)
    for (const line of order.lines) {
      const row = byAsin.get(line.listing.asin) ?? { units: 0, revenue: 0 };
      row.units += line.quantity;
      row.revenue += line.itemPrice;
      byAsin.set(line.listing.asin, row);
    }
  if (byAsin.size === 0) byAsin.set(fallbackAsin, { units: 0, revenue: 0 });
  const window = { startTime: hourWindow(hourStart).start, endTime: hourWindow(hourStart).end };
  return {
    itemSalesEventChanges: [...byAsin].map(([asin, row]) => ({
      accountId,
      marketplaceId,
      currencyCode: currency,
      ...window,
      asin,
      orderedUnits: row.units,
      orderedRevenue: row.revenue / 10 ** minorDigits(currency),
    })),
  };
}

/** An hour's bounds as the hourly notifications write them (no milliseconds). */
export const hourWindow = (hourStart: number) => ({
  start: new Date(hourStart).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  end: new Date(hourStart + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
});
