import { z } from 'zod';

// Mutation targets, actions and the payload each (target type, action) takes (spec 4.8, 4.12),
// defined once: admission validates with these and `get_mutation_schema` shows their JSON Schema.
// Ads payloads use the Sponsored Products v3 keys the observed entities carry in `data`
// (src/marketplace/clients/ads-sp-types.ts), so what an agent reads it can write back; money
// (budgets, bids) is in major units of the profile currency. Ids of the entity and its parents,
// `adProduct` and `marketplaceScope` are derived from the target: optional, and when given they
// must match (checked at admission against the resolved target).

export const TARGET_TYPES = [
  'Listing',
  'AdvertisingProfile',
  'Campaign',
  'AdGroup',
  'Ad',
  'Target',
  'SellingPartner',
  'Advertiser',
] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export const ACTIONS = [
  'update',
  'archive',
  'create_campaign',
  'create_ad_group',
  'create_ad',
  'create_target',
] as const;
export type Action = (typeof ACTIONS)[number];

/** The entity a creation makes, by action. */
export const CREATED_TYPE = {
  create_campaign: 'Campaign',
  create_ad_group: 'AdGroup',
  create_ad: 'Ad',
  create_target: 'Target',
} as const satisfies Partial<Record<Action, TargetType>>;
export type CreationAction = keyof typeof CREATED_TYPE;
export const isCreation = (action: string): action is CreationAction => action in CREATED_TYPE;

const state = z.enum(['ENABLED', 'PAUSED']).describe('ENABLED or PAUSED (archive with the archive action)');
const money = (what: string) =>
  z.number().positive().describe(`${what}, in major units of the profile currency (e.g. 0.75)`);
const providerId = (what: string) =>
  z.string().min(1).describe(`${what}; derived from the target, must match when given`);
const adProduct = z.literal('SPONSORED_PRODUCTS').optional().describe('derived; must be SPONSORED_PRODUCTS when given');
const marketplaceScope = z
  .literal('SINGLE_MARKETPLACE')
  .optional()
  .describe('derived from the profile; must be SINGLE_MARKETPLACE when given');
const budget = z.strictObject({ budget: money('daily budget'), budgetType: z.literal('DAILY') });
const dateString = z.iso.date({ error: 'a calendar date YYYY-MM-DD' });
const tags = z.record(z.string(), z.string()).describe('free key/value labels');
const dynamicBidding = z.looseObject({
  strategy: z.enum(['LEGACY_FOR_SALES', 'AUTO_FOR_SALES', 'MANUAL', 'RULE_BASED']),
  placementBidding: z
    .array(
      z.strictObject({
        placement: z.enum(['PLACEMENT_TOP', 'PLACEMENT_PRODUCT_PAGE', 'PLACEMENT_REST_OF_SEARCH']),
        percentage: z.number().int().min(0).max(900),
      }),
    )
    .optional(),
});

const OFFER_SELECTORS = ['marketplace_id', 'currency', 'audience'] as const;

export const listingUpdate = z
  .strictObject({
    productType: z
      .string()
      .min(1)
      .describe("the listing's product type; PRODUCT for offer-only patches to /attributes/purchasable_offer"),
    patches: z
      .array(
        z.strictObject({
          op: z.enum(['add', 'replace', 'merge', 'delete']),
          path: z.string().regex(/^\/attributes\/[A-Za-z0-9_]+$/, '/attributes/<name>'),
          value: z
            .array(z.record(z.string(), z.unknown()))
            .describe(
              "the attribute's values in the product type definition's shape; offer patches carry marketplace_id, currency and audience selectors",
            ),
        }),
      )
      .min(1)
      .describe('native Listings Items patch operations, applied in order'),
  })
  .superRefine((update, ctx) => {
    // spec 4.5: offer values name the offer they change
    update.patches.forEach((patch, i) => {
      if (patch.path !== '/attributes/purchasable_offer') return;
      patch.value.forEach((value, j) => {
        const missing = OFFER_SELECTORS.filter((k) => typeof value[k] !== 'string');
        if (missing.length)
          ctx.addIssue({
            code: 'custom',
            path: ['patches', i, 'value', j],
            message: `a purchasable_offer value needs the selectors ${missing.join(', ')}`,
          });
      });
    });
  });

const campaignFields = {
  name: z.string().min(1).max(128),
  state,
  budget,
  startDate: dateString,
  endDate: dateString.nullable(),
  portfolioId: z.string().min(1),
  dynamicBidding,
  tags,
};

/** Fields derived from the target (its ids, its parents', the ad product, the profile's scope and country). */
export const DERIVED_FIELDS: readonly string[] = [
  'adProduct',
  'marketplaceScope',
  'countries',
  'campaignId',
  'adGroupId',
  'adId',
  'targetId',
];

// An update names at least one field to change besides the derived ones.
const changesSomething = <T extends z.ZodObject>(schema: T) =>
  schema.refine((u) => Object.keys(u).some((k) => !DERIVED_FIELDS.includes(k)), {
    message: 'name at least one field to change',
  });

export const campaignUpdate = changesSomething(
  z.strictObject({ campaignId: providerId('the campaign id').optional(), adProduct, ...partial(campaignFields) }),
);
export const adGroupUpdate = changesSomething(
  z.strictObject({
    adGroupId: providerId('the ad group id').optional(),
    campaignId: providerId('the parent campaign id').optional(),
    adProduct,
    name: z.string().min(1).max(255).optional(),
    state: state.optional(),
    defaultBid: money('default bid').optional(),
  }),
);
export const adUpdate = changesSomething(
  z.strictObject({ adId: providerId('the ad id').optional(), adProduct, state: state.optional() }),
);
export const targetUpdate = changesSomething(
  z.strictObject({
    targetId: providerId('the target (keyword or targeting clause) id').optional(),
    adProduct,
    state: state.optional(),
    bid: z
      .strictObject({ bid: money('bid') })
      .optional()
      .describe('positive targets only'),
  }),
);

export const campaignCreate = z.strictObject({
  adProduct,
  marketplaceScope,
  countries: z
    .array(z.string().length(2))
    .length(1)
    .optional()
    .describe("derived: the profile's country; when given it must name only that country"),
  name: campaignFields.name,
  targetingType: z.enum(['AUTO', 'MANUAL']),
  state,
  budget,
  startDate: campaignFields.startDate.optional().describe("defaults to today in the profile's time zone"),
  endDate: campaignFields.endDate.optional(),
  portfolioId: campaignFields.portfolioId.optional(),
  dynamicBidding: dynamicBidding.optional(),
  tags: tags.optional(),
});
export const adGroupCreate = z.strictObject({
  adProduct,
  campaignId: providerId('the parent campaign id').optional(),
  name: z.string().min(1).max(255),
  state,
  defaultBid: money('default bid'),
});
export const adCreate = z
  .strictObject({
    adProduct,
    campaignId: providerId('the parent campaign id').optional(),
    adGroupId: providerId('the parent ad group id').optional(),
    state,
    sku: z.string().min(1).optional().describe("a SKU the account lists in the profile's marketplace (sellers)"),
    asin: z
      .string()
      .regex(/^[A-Z0-9]{10}$/)
      .optional()
      .describe("an ASIN the account has in the profile's marketplace (vendors)"),
  })
  .refine((ad) => (ad.sku === undefined) !== (ad.asin === undefined), {
    message: 'name the advertised product with exactly one of sku or asin',
  })
  .describe('a product ad: exactly one of sku or asin');

const keywordTarget = z.strictObject({
  keywordTarget: z.strictObject({
    keyword: z.string().min(1).max(80),
    matchType: z.enum(['EXACT', 'PHRASE', 'BROAD']),
  }),
});
const productTarget = z.strictObject({
  productTarget: z.strictObject({
    product: z.strictObject({ productId: z.string().min(1) }),
    productIdType: z.literal('ASIN'),
    matchType: z.enum(['PRODUCT_EXACT', 'PRODUCT_SIMILAR']).optional(),
  }),
});
const productCategoryTarget = z.strictObject({
  productCategoryTarget: z.strictObject({
    productCategoryRefinement: z.strictObject({ productCategoryId: z.string().min(1) }),
  }),
});

const targetFields = {
  adProduct,
  marketplaceScope,
  campaignId: providerId('the parent campaign id').optional(),
  targetType: z
    .enum(['KEYWORD', 'PRODUCT', 'PRODUCT_CATEGORY'])
    .describe('audience, location and other display types are refused'),
  state,
  targetDetails: z
    .union([keywordTarget, productTarget, productCategoryTarget])
    .describe('one of keywordTarget, productTarget, productCategoryTarget, matching targetType'),
};

type TargetDraft = {
  targetType: 'KEYWORD' | 'PRODUCT' | 'PRODUCT_CATEGORY';
  targetDetails: object;
  negative: boolean;
  bid?: unknown;
};
function targetRules(t: TargetDraft, ctx: z.RefinementCtx) {
  const detail = { KEYWORD: 'keywordTarget', PRODUCT: 'productTarget', PRODUCT_CATEGORY: 'productCategoryTarget' }[
    t.targetType
  ];
  if (!(detail in t.targetDetails))
    ctx.addIssue({
      code: 'custom',
      path: ['targetDetails'],
      message: `targetType ${t.targetType} needs targetDetails.${detail}`,
    });
  if (t.negative && t.bid !== undefined)
    ctx.addIssue({ code: 'custom', path: ['bid'], message: 'an exclusion (negative: true) takes no bid' });
}

/** A target in an ad group: positive (with an optional bid) or an exclusion. */
export const adGroupTargetCreate = z
  .strictObject({
    ...targetFields,
    adGroupId: providerId('the parent ad group id').optional(),
    negative: z.boolean().describe('true for an exclusion (takes no bid)'),
    bid: z
      .strictObject({ bid: money('bid') })
      .optional()
      .describe('positive targets only; defaults to the ad group default bid'),
  })
  .superRefine(targetRules);

/** A campaign-level target is always an exclusion and takes no bid. */
export const campaignTargetCreate = z
  .strictObject({ ...targetFields, negative: z.literal(true).describe('a campaign-level target must be an exclusion') })
  .superRefine(targetRules);

export const archivePayload = z.strictObject({}).describe('archiving is permanent and takes an empty object');

function partial<T extends Record<string, z.ZodType>>(fields: T): { [K in keyof T]: z.ZodOptional<T[K]> } {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof T]: z.ZodOptional<T[K]>;
  };
}

/** The table of spec 4.8: which actions each target type takes, with their payload. */
export const PAYLOADS: Partial<Record<TargetType, Partial<Record<Action, z.ZodType>>>> = {
  Listing: { update: listingUpdate },
  AdvertisingProfile: { create_campaign: campaignCreate },
  Campaign: {
    update: campaignUpdate,
    archive: archivePayload,
    create_ad_group: adGroupCreate,
    create_target: campaignTargetCreate,
  },
  AdGroup: { update: adGroupUpdate, archive: archivePayload, create_ad: adCreate, create_target: adGroupTargetCreate },
  Ad: { update: adUpdate, archive: archivePayload },
  Target: { update: targetUpdate, archive: archivePayload },
};

/** The payload schema of a combination, or null when the table doesn't allow it. */
export function payloadSchema(targetType: TargetType, action: Action): z.ZodType | null {
  return PAYLOADS[targetType]?.[action] ?? null;
}

export const allowedActions = (targetType: TargetType): Action[] => Object.keys(PAYLOADS[targetType] ?? {}) as Action[];

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

/** The JSON Schema of a combination's payload as agents read it (get_mutation_schema,
 * describe_stream_type), or null when the table doesn't allow it. */
export function payloadJsonSchema(targetType: TargetType, action: Action): JsonSchema | null {
  const schema = payloadSchema(targetType, action);
  if (!schema) return null;
  const { $schema: _, ...json } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as JsonSchema;
  return json;
}

/** The payload keys a caller chooses (every key but those derived from the target). */
export const chosenFields = (json: JsonSchema): string[] =>
  Object.keys(json.properties ?? {}).filter((k) => !DERIVED_FIELDS.includes(k));
