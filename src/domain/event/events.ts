import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';

// A marketplace message as recorded: one stream per message and account,
// `event-<account_id>.<message id>`, created once (a duplicate delivery finds the stream there).

export const MarketplaceEventReceived = z.object({
  account_id: z.uuid(),
  /** the provider's message id (the signed `webhook-id`) */
  message_id: z.string().min(1),
  /** the event type code (spec 6), the two internally handled types included */
  stream_type: z.string().min(1),
  source: z.enum(['selling', 'ads']),
  /** when the marketplace says it happened (the envelope's event time, the dataset's own time) */
  occurred_at: instant,
  received_at: instant,
  /** the message as the marketplace sent it */
  payload: z.record(z.string(), z.unknown()),
});
export type MarketplaceEventData = z.infer<typeof MarketplaceEventReceived>;

export const marketplaceEventSchemas = { MarketplaceEventReceived } as const;
export type MarketplaceEvent = EventUnion<typeof marketplaceEventSchemas>;
export const MARKETPLACE_EVENT_TYPES = Object.keys(marketplaceEventSchemas) as MarketplaceEvent['type'][];
