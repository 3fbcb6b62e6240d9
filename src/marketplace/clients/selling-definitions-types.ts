import { z } from 'zod';

// Wire shapes of the Product Type Definitions API 2020-09-01
// (product-type-definitions-api-model/definitionsProductTypes_2020-09-01.json).

export const schemaLinkSchema = z.looseObject({
  link: z.looseObject({ resource: z.string().url(), verb: z.literal('GET') }),
  /** Base64 MD5 of the linked document */
  checksum: z.string(),
});

export const productTypeDefinitionSchema = z.looseObject({
  metaSchema: schemaLinkSchema.optional(),
  schema: schemaLinkSchema,
  requirements: z.enum(['LISTING', 'LISTING_PRODUCT_ONLY', 'LISTING_OFFER_ONLY']),
  requirementsEnforced: z.enum(['ENFORCED', 'NOT_ENFORCED']),
  propertyGroups: z.record(
    z.string(),
    z.looseObject({
      title: z.string().optional(),
      description: z.string().optional(),
      propertyNames: z.array(z.string()).optional(),
    }),
  ),
  locale: z.string(),
  marketplaceIds: z.array(z.string()),
  productType: z.string(),
  displayName: z.string(),
  productTypeVersion: z.looseObject({
    version: z.string(),
    latest: z.boolean(),
    releaseCandidate: z.boolean().optional(),
  }),
});
export type ProductTypeDefinition = z.infer<typeof productTypeDefinitionSchema>;

export const productTypeListSchema = z.looseObject({
  productTypes: z.array(
    z.looseObject({ name: z.string(), displayName: z.string(), marketplaceIds: z.array(z.string()) }),
  ),
  productTypeVersion: z.string(),
});
export type ProductTypeList = z.infer<typeof productTypeListSchema>;
