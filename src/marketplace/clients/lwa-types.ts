import { z } from 'zod';

// Login with Amazon token endpoint (POST /auth/o2/token), refresh_token grant.
export const lwaTokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().positive(),
  refresh_token: z.string().optional(),
});
export type LwaTokenResponse = z.infer<typeof lwaTokenResponseSchema>;

/** LWA's error body (OAuth 2 style): `invalid_grant`, `invalid_client`, `invalid_request`, ... */
export const lwaErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() });
export type LwaError = z.infer<typeof lwaErrorSchema>;
