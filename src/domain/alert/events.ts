import { z } from 'zod';
import type { EventUnion } from '../shared/decider.js';
import { instant } from '../shared/instant.js';

// Alerts (docs/decisions/160-alerts.md): what a seller is told, at the destination they chose, when
// something needs them: the marketplace revoked an authorization, an event stream failed, receipts
// were left uncertain, an automation fails run after run. One stream per account: `alert-<account>`.

export const ALERT_KINDS = [
  'authorization_revoked',
  'stream_failed',
  'receipts_uncertain',
  'automation_failing',
] as const;
export const AlertKind = z.enum(ALERT_KINDS);
export type AlertKind = z.infer<typeof AlertKind>;

/**
 * Where the account's alerts go: one of its webhooks (by name), or a seller's own email address,
 * named by their user id (the address is read at sending: it never enters the log, and a deleted
 * seller's is gone).
 */
export const AlertDestination = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('webhook'), webhook: z.string().min(1) }),
  z.object({ kind: z.literal('email'), user_id: z.uuid() }),
]);
export type AlertDestination = z.infer<typeof AlertDestination>;

export const AlertDestinationSet = z.object({
  account_id: z.uuid(),
  /** null: alerts are off */
  destination: AlertDestination.nullable(),
  by: z.string().min(1),
  at: instant,
});

/** A condition found that was not open: `key` names it (the same condition is one alert until it clears). */
export const AlertRaised = z.object({
  account_id: z.uuid(),
  alert_id: z.uuid(),
  key: z.string().min(1),
  kind: AlertKind,
  detail: z.string().min(1),
  destination: AlertDestination,
  at: instant,
});

/** Handed to its destination (a webhook delivery recorded, or the mail sent), or `refused` there and dropped. */
export const AlertSent = z.object({ alert_id: z.uuid(), at: instant, refused: z.string().nullable() });

/** The condition is no longer found: if it comes back, it is a new alert. */
export const AlertCleared = z.object({ key: z.string().min(1), at: instant });

export const alertEventSchemas = { AlertDestinationSet, AlertRaised, AlertSent, AlertCleared } as const;
export type AlertEvent = EventUnion<typeof alertEventSchemas>;
