import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';
import { AlertKind } from '../alert/events.js';

// Events of an account's webhook settings (`webhook-<account id>`: every webhook of the account in
// one stream, so a name stays unique per account under concurrent edits) and of one delivery
// (`webhook_delivery-<delivery id>`: the post, each attempt, and how it ended).

const author = z.string().min(1);

/** `json` posts the payload as JSON; `chat` always posts `{ "text": … }` (spec 2.13). */
export const WebhookKind = z.enum(['json', 'chat']);
export type WebhookKind = z.infer<typeof WebhookKind>;

export const WebhookSettings = z.object({
  name: z.string(),
  url: z.string(),
  /** header name → value, as configured (names as written; compared case-insensitively) */
  headers: z.record(z.string(), z.string()),
  kind: WebhookKind,
});
export type WebhookSettings = z.infer<typeof WebhookSettings>;
export type WebhookHeaders = WebhookSettings['headers'];

/**
 * A new webhook, enabled. The signing secret itself is never recorded: `secret_nonce` is random
 * and the secret derives from it and the service's signing key (secret.ts).
 */
export const WebhookConfigured = WebhookSettings.extend({
  webhook_id: z.uuid(),
  account_id: z.uuid(),
  secret_nonce: z.string().min(1),
  by: author,
  at: instant,
});
/** The webhook's whole settings after the change. */
export const WebhookUpdated = WebhookSettings.extend({ webhook_id: z.uuid(), by: author, at: instant });
export const WebhookEnabled = z.object({ webhook_id: z.uuid(), by: author, at: instant });
export const WebhookDisabled = z.object({ webhook_id: z.uuid(), by: author, at: instant });
export const WebhookRemoved = z.object({ webhook_id: z.uuid(), by: author, at: instant });
export const WebhookSecretRotated = z.object({
  webhook_id: z.uuid(),
  secret_nonce: z.string().min(1),
  by: author,
  at: instant,
});

export const webhookEventSchemas = {
  WebhookConfigured,
  WebhookUpdated,
  WebhookEnabled,
  WebhookDisabled,
  WebhookRemoved,
  WebhookSecretRotated,
} as const;
export type WebhookEvent = EventUnion<typeof webhookEventSchemas>;

/** What made a delivery: an automation's live run, or a "send test" by an operator. */
export const DeliveryCause = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('automation'),
    automation_id: z.uuid(),
    automation_version: z.number().int().min(1),
    event_id: z.string().min(1),
    run_id: z.string().min(1).nullable(),
  }),
  z.object({ kind: z.literal('test'), by: author }),
  // an alert of the account's (docs/decisions/160-alerts.md)
  z.object({ kind: z.literal('alert'), alert_id: z.uuid(), alert_kind: AlertKind }),
]);
export type DeliveryCause = z.infer<typeof DeliveryCause>;

/** The exact body every attempt sends (and signs), built once from the payload. */
export const WebhookDeliveryRequested = z.object({
  delivery_id: z.uuid(),
  account_id: z.uuid(),
  webhook_id: z.uuid(),
  webhook_name: z.string(),
  body: z.string(),
  cause: DeliveryCause,
  at: instant,
});

export const AttemptOutcome = z.enum(['delivered', 'retry', 'failed']);
export type AttemptOutcome = z.infer<typeof AttemptOutcome>;

export const WebhookAttemptRecorded = z.object({
  attempt: z.number().int().min(1),
  started_at: instant,
  duration_ms: z.number().int().min(0),
  /** the receiver's HTTP status; null when no answer came (timeout, network, refused address) */
  status: z.number().int().nullable(),
  /** the first 10 KB of the response body */
  response: z.string().nullable(),
  error: z.string().nullable(),
  outcome: AttemptOutcome,
  /** when the next attempt is due (outcome `retry`), else null */
  next_attempt_at: instant.nullable(),
  at: instant,
});
/** Ended without an attempt: the webhook was removed or disabled before it was due. */
export const WebhookDeliveryCancelled = z.object({ reason: z.string(), at: instant });

export const webhookDeliveryEventSchemas = {
  WebhookDeliveryRequested,
  WebhookAttemptRecorded,
  WebhookDeliveryCancelled,
} as const;
export type WebhookDeliveryEvent = EventUnion<typeof webhookDeliveryEventSchemas>;
