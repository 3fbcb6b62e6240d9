import { z } from 'zod';

// Wire shapes of the Orders API v0 (orders-api-model/ordersV0.json). Loose objects: orders
// are recorded with every key the provider sent.

/** `{ CurrencyCode, Amount }`, the amount a decimal string ("12.34"). */
export const orderMoneySchema = z.looseObject({ CurrencyCode: z.string(), Amount: z.string() });

export const orderSchema = z.looseObject({
  AmazonOrderId: z.string(),
  PurchaseDate: z.string(),
  LastUpdateDate: z.string(),
  OrderStatus: z.string(),
  FulfillmentChannel: z.enum(['MFN', 'AFN']).optional(),
  OrderTotal: orderMoneySchema.optional(),
  MarketplaceId: z.string().optional(),
  IsBusinessOrder: z.boolean().optional(),
});
export type Order = z.infer<typeof orderSchema>;

export const getOrdersResponseSchema = z.looseObject({
  payload: z.looseObject({ Orders: z.array(orderSchema), NextToken: z.string().optional() }),
});

export const orderItemSchema = z.looseObject({
  ASIN: z.string(),
  SellerSKU: z.string().optional(),
  OrderItemId: z.string(),
  Title: z.string().optional(),
  QuantityOrdered: z.number().int(),
  QuantityShipped: z.number().int().optional(),
  ItemPrice: orderMoneySchema.optional(),
});
export type OrderItem = z.infer<typeof orderItemSchema>;

export const getOrderItemsResponseSchema = z.looseObject({
  payload: z.looseObject({
    AmazonOrderId: z.string(),
    OrderItems: z.array(orderItemSchema),
    NextToken: z.string().optional(),
  }),
});
