import { createHmac, randomBytes } from 'node:crypto';

// A webhook's signing secret is never stored: it derives from the service's signing key and a
// random nonce recorded with the webhook (rotation records a new nonce), so the event log holds
// nothing a receiver could be impersonated with, and the delivery worker can sign every attempt.

/** A fresh nonce for a new webhook or a rotation. */
export const newSecretNonce = (): string => randomBytes(24).toString('base64url');

/** The secret in the `whsec_<base64>` form Standard Webhooks libraries take. */
export const webhookSecret = (signingKey: string, webhook_id: string, nonce: string): string =>
  `whsec_${createHmac('sha256', signingKey).update(`webhook:${webhook_id}:${nonce}`).digest('base64')}`;
