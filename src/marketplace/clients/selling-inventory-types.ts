import { z } from 'zod';

// Wire shapes of the FBA Inventory API v1 (fba-inventory-api-model). Loose objects: summaries
// are recorded with every key the provider sent.

export const inventorySummarySchema = z.looseObject({
  asin: z.string().optional(),
  fnSku: z.string().optional(),
  sellerSku: z.string().optional(),
  condition: z.string().optional(),
  inventoryDetails: z
    .looseObject({
      fulfillableQuantity: z.number().int().optional(),
      inboundWorkingQuantity: z.number().int().optional(),
      inboundShippedQuantity: z.number().int().optional(),
      inboundReceivingQuantity: z.number().int().optional(),
      reservedQuantity: z.looseObject({ totalReservedQuantity: z.number().int().optional() }).optional(),
      researchingQuantity: z.looseObject({ totalResearchingQuantity: z.number().int().optional() }).optional(),
      unfulfillableQuantity: z.looseObject({ totalUnfulfillableQuantity: z.number().int().optional() }).optional(),
    })
    .optional(),
  lastUpdatedTime: z.string().optional(),
  productName: z.string().optional(),
  totalQuantity: z.number().int().optional(),
});
export type InventorySummary = z.infer<typeof inventorySummarySchema>;

export const getInventorySummariesResponseSchema = z.looseObject({
  payload: z.looseObject({ inventorySummaries: z.array(inventorySummarySchema) }),
  pagination: z.looseObject({ nextToken: z.string().optional() }).optional(),
});
