import { z } from 'zod';

// Wire shapes of the advertising API's v2 profiles resource, and its error answers.

/**
 * Error answers of the advertising API, whose resources disagree on the text's key: v2 sends
 * `{ code, details, requestId? }`, Sponsored Products v3 `{ code, message }`, reporting v3
 * `{ code, detail }`. `details` carries the text whichever key it came in.
 */
export const adsErrorSchema = z
  .object({
    code: z.string(),
    details: z.string().optional(),
    detail: z.string().optional(),
    message: z.string().optional(),
    requestId: z.string().optional(),
  })
  .transform(({ detail, ...error }) => ({ ...error, details: error.details ?? detail ?? error.message }));
export type AdsError = z.infer<typeof adsErrorSchema>;

export const profileSchema = z.object({
  profileId: z.number().int(),
  countryCode: z.string(),
  currencyCode: z.string(),
  dailyBudget: z.number().optional(),
  timezone: z.string(),
  accountInfo: z.object({
    marketplaceStringId: z.string(),
    id: z.string(),
    type: z.enum(['seller', 'vendor', 'agency']),
    name: z.string().optional(),
    subType: z.string().optional(),
    validPaymentMethod: z.boolean().optional(),
  }),
});
export type Profile = z.infer<typeof profileSchema>;

export const listProfilesResponseSchema = z.array(profileSchema);
