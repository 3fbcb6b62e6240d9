import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';

// Events of one event type's subscription on one account (`subscription-<account>.<stream type>`):
// the service asked for it, the marketplace answered (pending confirmation, active or failed), the
// marketplace was found to have lost it, and the service let it go. Provider ids are kept so a poll reads the same subscriptions it made.

/** `request` counts the requests (1, 2, …): an ads create is retried under one token per request. */
export const SubscriptionRequested = z.object({
  account_id: z.uuid(),
  stream_type: z.string(),
  request: z.number().int().positive(),
  at: instant,
});
/** the provider's subscription ids (one per advertising profile; one for a selling type) and the selling destination */
const ProviderIds = {
  subscription_ids: z.array(z.string().min(1)).min(1),
  destination_id: z.string().min(1).nullable(),
};
export const SubscriptionPending = z.object({ ...ProviderIds, at: instant });
export const SubscriptionActivated = z.object({ ...ProviderIds, at: instant });
/** `error`: the provider's answer (status, code, message) as the worker saw it */
export const SubscriptionFailed = z.object({ error: z.string().min(1), at: instant });
/** the marketplace no longer has the subscription (or its destination) it answered with; `error` says what was missing */
export const SubscriptionLost = z.object({ error: z.string().min(1), at: instant });
export const UnsubscribeRequested = z.object({ at: instant });
export const Unsubscribed = z.object({ at: instant });

export const subscriptionEventSchemas = {
  SubscriptionRequested,
  SubscriptionPending,
  SubscriptionActivated,
  SubscriptionFailed,
  SubscriptionLost,
  UnsubscribeRequested,
  Unsubscribed,
} as const;
export type SubscriptionEvent = EventUnion<typeof subscriptionEventSchemas>;
