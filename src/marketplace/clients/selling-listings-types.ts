import { z } from 'zod';
import { searchResultsSchema } from './selling-call.js';

// Wire shapes of the Listings Items API 2021-08-01 (listings-items-api-model). Objects are
// loose: observed items are recorded with every key the provider sent.

/** The parts of an item a request may ask for (`includedData`); the item carries those it got. */
export const LISTING_INCLUDED_DATA = [
  'summaries',
  'attributes',
  'issues',
  'offers',
  'fulfillmentAvailability',
  'procurement',
  'relationships',
  'productTypes',
] as const;
export type ListingIncludedData = (typeof LISTING_INCLUDED_DATA)[number];

export const listingIssueSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  severity: z.enum(['ERROR', 'WARNING', 'INFO']),
  attributeNames: z.array(z.string()).optional(),
  categories: z.array(z.string()).optional(),
});

export const listingSummarySchema = z.looseObject({
  marketplaceId: z.string(),
  asin: z.string().optional(),
  productType: z.string(),
  conditionType: z.string().optional(),
  /** Absent while the marketplace hasn't reported a status (the model marks it required). */
  status: z.array(z.string()).optional(),
  fnSku: z.string().optional(),
  itemName: z.string().optional(),
  createdDate: z.string(),
  lastUpdatedDate: z.string(),
});

const moneySchema = z.looseObject({ currencyCode: z.string(), amount: z.string() });

export const listingOfferSchema = z.looseObject({
  marketplaceId: z.string(),
  offerType: z.string(),
  price: moneySchema,
  audience: z.looseObject({ value: z.string().optional(), displayName: z.string().optional() }).optional(),
});

export const listingItemSchema = z.looseObject({
  sku: z.string(),
  summaries: z.array(listingSummarySchema).optional(),
  /** Attribute name → values, each `{ value?, marketplace_id?, ... }`; shapes vary by attribute. */
  attributes: z.record(z.string(), z.array(z.unknown())).optional(),
  issues: z.array(listingIssueSchema).optional(),
  offers: z.array(listingOfferSchema).optional(),
  fulfillmentAvailability: z
    .array(z.looseObject({ fulfillmentChannelCode: z.string(), quantity: z.number().int().optional() }))
    .optional(),
});
export type ListingItem = z.infer<typeof listingItemSchema>;

export const listingSearchResultsSchema = searchResultsSchema(listingItemSchema);

export interface ListingPatchOperation {
  op: 'add' | 'replace' | 'merge' | 'delete';
  /** e.g. `/attributes/purchasable_offer` */
  path: string;
  value?: unknown[];
}

export interface ListingsItemPatchRequest {
  productType: string;
  patches: ListingPatchOperation[];
}

export const listingSubmissionResponseSchema = z.looseObject({
  sku: z.string(),
  status: z.enum(['ACCEPTED', 'INVALID', 'VALID']),
  submissionId: z.string(),
  issues: z.array(listingIssueSchema).optional(),
});
export type ListingSubmissionResponse = z.infer<typeof listingSubmissionResponseSchema>;
