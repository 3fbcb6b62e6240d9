import { z } from 'zod';

// Wire shapes of Sponsored Products v3 (ads-api specs, SponsoredProducts_prod_3p.json). Entity
// schemas are loose: the provider adds fields over time, and observed entities are kept with
// every key they came with. Money (budgets, bids) is in major units of the profile currency.

export const ENTITY_STATES = [
  'ENABLED',
  'PAUSED',
  'ARCHIVED',
  'ENABLING',
  'PROPOSED',
  'USER_DELETED',
  'OTHER',
] as const;
export const entityStateSchema = z.enum(ENTITY_STATES);

const expressionSchema = z.array(z.looseObject({ type: z.string(), value: z.string().optional() }));

export const campaignSchema = z.looseObject({
  campaignId: z.string(),
  name: z.string(),
  state: entityStateSchema,
  targetingType: z.enum(['AUTO', 'MANUAL']),
  startDate: z.string(),
  endDate: z.string().nullable().optional(),
  budget: z.looseObject({ budget: z.number(), budgetType: z.enum(['DAILY', 'OTHER']) }),
  portfolioId: z.string().optional(),
  dynamicBidding: z.looseObject({ strategy: z.string() }).optional(),
});

export const adGroupSchema = z.looseObject({
  adGroupId: z.string(),
  campaignId: z.string(),
  name: z.string(),
  state: entityStateSchema,
  defaultBid: z.number(),
});

export const productAdSchema = z.looseObject({
  adId: z.string(),
  adGroupId: z.string(),
  campaignId: z.string(),
  state: entityStateSchema,
  asin: z.string().optional(),
  sku: z.string().optional(),
});

export const keywordSchema = z.looseObject({
  keywordId: z.string(),
  adGroupId: z.string(),
  campaignId: z.string(),
  keywordText: z.string(),
  matchType: z.enum(['BROAD', 'EXACT', 'PHRASE', 'OTHER']),
  state: entityStateSchema,
  bid: z.number().optional(),
});

export const targetingClauseSchema = z.looseObject({
  targetId: z.string(),
  adGroupId: z.string(),
  campaignId: z.string(),
  expression: expressionSchema,
  resolvedExpression: expressionSchema,
  expressionType: z.enum(['AUTO', 'MANUAL', 'OTHER']),
  state: entityStateSchema,
  bid: z.number().optional(),
});

const NEGATIVE_MATCH_TYPES = ['NEGATIVE_EXACT', 'NEGATIVE_PHRASE', 'NEGATIVE_BROAD', 'OTHER'] as const;

export const negativeKeywordSchema = z.looseObject({
  keywordId: z.string(),
  adGroupId: z.string(),
  campaignId: z.string(),
  keywordText: z.string(),
  matchType: z.enum(NEGATIVE_MATCH_TYPES),
  state: entityStateSchema,
});

export const negativeTargetingClauseSchema = z.looseObject({
  targetId: z.string(),
  adGroupId: z.string(),
  campaignId: z.string(),
  expression: expressionSchema,
  resolvedExpression: expressionSchema,
  state: entityStateSchema,
});

export const campaignNegativeKeywordSchema = z.looseObject({
  keywordId: z.string(),
  campaignId: z.string(),
  keywordText: z.string(),
  matchType: z.enum(NEGATIVE_MATCH_TYPES),
  state: entityStateSchema,
});

export const campaignNegativeTargetingClauseSchema = z.looseObject({
  targetId: z.string(),
  campaignId: z.string(),
  expression: expressionSchema,
  resolvedExpression: expressionSchema,
  state: entityStateSchema,
});

/**
 * The nine resources, with the names each one uses on the wire: `POST /sp/<path>/list` answers
 * `{ <key>: [...], nextToken? }`; create/update/delete answer 207 with
 * `{ <key>: { success: [{ index, <successIdKey>, <successKey>? }], error: [{ index, errors }] } }`.
 * The provider's own spelling is kept, irregular plural of campaignNegativeTargets included.
 */
export const SP_RESOURCES = {
  campaigns: {
    mediaType: 'application/vnd.spCampaign.v3+json',
    key: 'campaigns',
    idKey: 'campaignId',
    idFilter: 'campaignIdFilter',
    successKey: 'campaign',
    successIdKey: 'campaignId',
    entityType: 'CAMPAIGN',
    schema: campaignSchema,
  },
  adGroups: {
    mediaType: 'application/vnd.spAdGroup.v3+json',
    key: 'adGroups',
    idKey: 'adGroupId',
    idFilter: 'adGroupIdFilter',
    successKey: 'adGroup',
    successIdKey: 'adGroupId',
    entityType: 'AD_GROUP',
    schema: adGroupSchema,
  },
  productAds: {
    mediaType: 'application/vnd.spProductAd.v3+json',
    key: 'productAds',
    idKey: 'adId',
    idFilter: 'adIdFilter',
    successKey: 'productAd',
    successIdKey: 'adId',
    entityType: 'PRODUCT_AD',
    schema: productAdSchema,
  },
  keywords: {
    mediaType: 'application/vnd.spKeyword.v3+json',
    key: 'keywords',
    idKey: 'keywordId',
    idFilter: 'keywordIdFilter',
    successKey: 'keyword',
    successIdKey: 'keywordId',
    entityType: 'KEYWORD',
    schema: keywordSchema,
  },
  targets: {
    mediaType: 'application/vnd.spTargetingClause.v3+json',
    key: 'targetingClauses',
    idKey: 'targetId',
    idFilter: 'targetIdFilter',
    successKey: 'targetingClause',
    successIdKey: 'targetId',
    entityType: 'TARGETING_CLAUSE',
    schema: targetingClauseSchema,
  },
  negativeKeywords: {
    mediaType: 'application/vnd.spNegativeKeyword.v3+json',
    key: 'negativeKeywords',
    idKey: 'keywordId',
    idFilter: 'negativeKeywordIdFilter',
    successKey: 'negativeKeyword',
    successIdKey: 'negativeKeywordId',
    entityType: 'NEGATIVE_KEYWORD',
    schema: negativeKeywordSchema,
  },
  negativeTargets: {
    mediaType: 'application/vnd.spNegativeTargetingClause.v3+json',
    key: 'negativeTargetingClauses',
    idKey: 'targetId',
    idFilter: 'negativeTargetIdFilter',
    successKey: 'negativeTargetingClause',
    successIdKey: 'targetId',
    entityType: 'NEGATIVE_TARGETING_CLAUSE',
    schema: negativeTargetingClauseSchema,
  },
  campaignNegativeKeywords: {
    mediaType: 'application/vnd.spCampaignNegativeKeyword.v3+json',
    key: 'campaignNegativeKeywords',
    idKey: 'keywordId',
    idFilter: 'campaignNegativeKeywordIdFilter',
    successKey: 'campaignNegativeKeyword',
    successIdKey: 'campaignNegativeKeywordId',
    entityType: 'CAMPAIGN_NEGATIVE_KEYWORD',
    schema: campaignNegativeKeywordSchema,
  },
  campaignNegativeTargets: {
    mediaType: 'application/vnd.spCampaignNegativeTargetingClause.v3+json',
    key: 'campaignNegativeTargetingClauses',
    idKey: 'targetId',
    idFilter: 'campaignNegativeTargetIdFilter',
    successKey: 'campaignNegativeTargetingClauses',
    successIdKey: 'campaignNegativeTargetingClauseId',
    entityType: 'CAMPAIGN_NEGATIVE_TARGETING_CLAUSE',
    schema: campaignNegativeTargetingClauseSchema,
  },
} as const;

export type SpResource = keyof typeof SP_RESOURCES;
export const SP_RESOURCE_NAMES = Object.keys(SP_RESOURCES) as SpResource[];

/** The entity type each resource lists: its schema's. */
export type SpEntities = { [R in SpResource]: z.infer<(typeof SP_RESOURCES)[R]['schema']> };
export type SpCampaign = SpEntities['campaigns'];
export type SpKeyword = SpEntities['keywords'];
export type SpTargetingClause = SpEntities['targets'];

export const idFilterSchema = z.object({ include: z.array(z.string()).max(1000) });

/** The list filters the simulator and the sync use; each resource accepts the subset its spec names. */
export const listRequestSchema = z.looseObject({
  maxResults: z.number().int().optional(),
  nextToken: z.string().optional(),
  stateFilter: z.object({ include: z.array(entityStateSchema).max(10) }).optional(),
  campaignIdFilter: idFilterSchema.optional(),
  adGroupIdFilter: idFilterSchema.optional(),
  includeExtendedDataFields: z.boolean().optional(),
});
export type SpListRequest = z.input<typeof listRequestSchema>;

/** One error of a 207 item: `{ errorType, errorValue: { <kind>Error: { reason, message, ... } } }`. */
export const mutationErrorSchema = z.looseObject({
  errorType: z.string(),
  errorValue: z.record(z.string(), z.looseObject({ reason: z.string(), message: z.string() })),
});
export type SpMutationError = z.infer<typeof mutationErrorSchema>;

export const multiStatusSchema = z.object({
  success: z.array(z.looseObject({ index: z.number().int() })).default([]),
  error: z.array(z.looseObject({ index: z.number().int(), errors: z.array(mutationErrorSchema) })).default([]),
});

/** What a create, update or delete answered, item by item, in the caller's terms. */
export interface SpMultiStatus<E> {
  success: Array<{ index: number; id: string; entity?: E }>;
  error: Array<{ index: number; errors: SpMutationError[] }>;
}
