import { z } from 'zod';

// Wire shapes of the Sellers API v1 (selling-api models, sellers-api-model/sellers.json).

export const sellingErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.string().optional(),
});
/** Every selling API error answer: `{ errors: [{ code, message, details? }] }`. */
export const sellingErrorListSchema = z.object({ errors: z.array(sellingErrorSchema).min(1) });
export type SellingErrorList = z.infer<typeof sellingErrorListSchema>;

/** ISO 3166-1 alpha-2, as the Sellers API writes countries (GB for the United Kingdom). */
const countryCode = z.string().regex(/^[A-Z]{2}$/);

export const marketplaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  countryCode,
  defaultCurrencyCode: z.string(),
  defaultLanguageCode: z.string(),
  domainName: z.string(),
});
export type Marketplace = z.infer<typeof marketplaceSchema>;

export const participationSchema = z.object({ isParticipating: z.boolean(), hasSuspendedListings: z.boolean() });

export const marketplaceParticipationSchema = z.object({
  marketplace: marketplaceSchema,
  participation: participationSchema,
  storeName: z.string(),
});
export type MarketplaceParticipation = z.infer<typeof marketplaceParticipationSchema>;

export const getMarketplaceParticipationsResponseSchema = z.object({
  payload: z.array(marketplaceParticipationSchema),
});
export type GetMarketplaceParticipationsResponse = z.infer<typeof getMarketplaceParticipationsResponseSchema>;

export const addressSchema = z.object({
  addressLine1: z.string(),
  addressLine2: z.string().optional(),
  countryCode,
  stateOrProvinceCode: z.string().optional(),
  city: z.string().optional(),
  postalCode: z.string().optional(),
});

export const BUSINESS_TYPES = [
  'CHARITY',
  'CRAFTSMAN',
  'NATURAL_PERSON_COMPANY',
  'PUBLIC_LISTED',
  'PRIVATE_LIMITED',
  'SOLE_PROPRIETORSHIP',
  'STATE_OWNED',
  'INDIVIDUAL',
] as const;

export const accountSchema = z.object({
  // The model marks the currency and language required, yet its own getAccount example omits them.
  marketplaceParticipationList: z.array(
    marketplaceParticipationSchema.extend({
      marketplace: marketplaceSchema.partial({ defaultCurrencyCode: true, defaultLanguageCode: true }),
    }),
  ),
  businessType: z.enum(BUSINESS_TYPES),
  sellingPlan: z.enum(['PROFESSIONAL', 'INDIVIDUAL']),
  business: z
    .object({
      name: z.string(),
      registeredBusinessAddress: addressSchema,
      companyRegistrationNumber: z.string().optional(),
      companyTaxIdentificationNumber: z.string().optional(),
      nonLatinName: z.string().optional(),
    })
    .optional(),
  primaryContact: z
    .object({ name: z.string(), address: addressSchema, nonLatinName: z.string().optional() })
    .optional(),
});
export type Account = z.infer<typeof accountSchema>;

export const getAccountResponseSchema = z.object({ payload: accountSchema });
export type GetAccountResponse = z.infer<typeof getAccountResponseSchema>;
