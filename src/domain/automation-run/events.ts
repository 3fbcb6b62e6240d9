import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';
import { stableId } from '../shared/ids.js';

// One live run of an automation (`automation_run-<run id>`) and what it decided: its actions
// (spec 2.10, 3.3) or the error it ended with. A run is one automation version on one event for
// one listing (or none), so its id is derived from those four: the same run recorded twice is
// the same stream.

/** spec 3.3, the statuses of a `mutation` action. */
export const ACTION_STATUSES = ['queued', 'applied', 'failed', 'blocked'] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];
export const ACTION_KINDS = ['mutation', 'warning'] as const;

export interface RunKey {
  automation_id: string;
  automation_version: number;
  event_id: string;
  listing_id: string | null;
}

export const automationRunId = (k: RunKey): string =>
  stableId('automation-run', [k.automation_id, k.automation_version, k.event_id, k.listing_id ?? '-'].join('/'));
/** An action's id: its run and its place in the run. */
export const automationActionId = (run_id: string, index: number): string =>
  stableId('automation-action', `${run_id}/${index}`);

/** A `mutation` action carries its request's fields; a `warning` its `missing_fields`. */
export const AutomationAction = z.object({
  index: z.number().int().min(0),
  kind: z.enum(ACTION_KINDS),
  /** null for a warning */
  status: z.enum(ACTION_STATUSES).nullable(),
  error_message: z.string().nullable(),
  /** the requested amount in major units, when the request names one */
  value: z.number().nullable(),
  /** the request's action (update, archive, create_…) */
  action: z.string().nullable(),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  receipt_id: z.uuid().nullable(),
  /** the Listing or Ad target's listing as the run's context had it */
  asin: z.string().nullable(),
  sku: z.string().nullable(),
  marketplace_id: z.string().nullable(),
  title: z.string().nullable(),
  /** event keys the run read that the payload lacked (warnings only) */
  missing_fields: z.array(z.string()).nullable(),
});
export type AutomationAction = z.infer<typeof AutomationAction>;

/** Every field of an action that only some actions have, empty. */
export const NO_ACTION_FIELDS = {
  error_message: null,
  value: null,
  action: null,
  target_type: null,
  target_id: null,
  receipt_id: null,
  asin: null,
  sku: null,
  marketplace_id: null,
  title: null,
  missing_fields: null,
} as const satisfies Partial<AutomationAction>;

/** Which run: its key, and the account and event type it ran for. */
export const RunIdentity = z.object({
  automation_id: z.uuid(),
  automation_version: z.number().int().min(1),
  account_id: z.uuid(),
  stream_type: z.string(),
  event_id: z.string().min(1),
  listing_id: z.string().nullable(),
});
export type RunIdentity = z.infer<typeof RunIdentity>;

export const AutomationRunRecorded = z.object({
  run_id: z.uuid(),
  run: RunIdentity,
  at: instant,
  /** the run failed (threw, timed out, ran out of memory, or its store writes were refused); null when it succeeded */
  error_message: z.string().nullable(),
  missing_fields: z.array(z.string()),
  store_changes: z.number().int().min(0),
  webhook_posts: z.number().int().min(0),
  actions: z.array(AutomationAction),
});

/** spec 3.3: a `queued` action's answer. */
export const AutomationActionSettled = z.object({
  index: z.number().int().min(0),
  status: z.enum(['applied', 'failed']),
  receipt_id: z.uuid().nullable(),
  error_message: z.string().nullable(),
  at: instant,
});

export const automationRunEventSchemas = { AutomationRunRecorded, AutomationActionSettled } as const;
export type AutomationRunEvent = EventUnion<typeof automationRunEventSchemas>;

/** The warning slot of one automation on one UTC day names the run that warned. */
export const AutomationWarningClaimed = z.object({
  automation_id: z.uuid(),
  day: z.iso.date(),
  run_id: z.uuid(),
  at: instant,
});
export const warningSlotEventSchemas = { AutomationWarningClaimed } as const;
export type WarningSlotEvent = EventUnion<typeof warningSlotEventSchemas>;
