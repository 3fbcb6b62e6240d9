import { z } from 'zod';
import { searchResultsSchema } from './selling-call.js';

// Wire shapes of the Catalog Items API 2022-04-01 (catalog-items-api-model). Loose objects:
// catalog items are recorded with every key the provider sent.

/** The parts of an item a request may ask for (`includedData`); the item carries those it got. */
export const CATALOG_INCLUDED_DATA = [
  'attributes',
  'classifications',
  'dimensions',
  'identifiers',
  'images',
  'productTypes',
  'relationships',
  'salesRanks',
  'summaries',
  'vendorDetails',
] as const;
export type CatalogIncludedData = (typeof CATALOG_INCLUDED_DATA)[number];

export const catalogIdentifierSchema = z.looseObject({ identifierType: z.string(), identifier: z.string() });

export const catalogItemSchema = z.looseObject({
  asin: z.string(),
  attributes: z.record(z.string(), z.array(z.unknown())).optional(),
  identifiers: z
    .array(z.looseObject({ marketplaceId: z.string(), identifiers: z.array(catalogIdentifierSchema) }))
    .optional(),
  productTypes: z.array(z.looseObject({ marketplaceId: z.string(), productType: z.string().optional() })).optional(),
  summaries: z
    .array(z.looseObject({ marketplaceId: z.string(), itemName: z.string().optional(), brand: z.string().optional() }))
    .optional(),
});
export type CatalogItem = z.infer<typeof catalogItemSchema>;

export const catalogSearchResultsSchema = searchResultsSchema(catalogItemSchema);
