import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';

// Events of admission itself (not of any one receipt), one decider each:
// - the operator switch (`admissions-switch`): new provider write requests paused or allowed;
// - an idempotency key's use (`idempotency-<hash of namespace and key>`): what a call with that
//   key admitted, so a retry answers the same and a different input is a conflict;
// - a creation's request on its parent (`creation-<hash of account, parent, action, payload>`):
//   the receipts of identical creations, so a new one is refused while the last is pending.

export const AdmissionsDisabled = z.object({ reason: z.string().nullable(), by: z.string(), at: instant });
export const AdmissionsEnabled = z.object({ by: z.string(), at: instant });

/** One mutation's result as the first call answered it: a receipt, or a rejection. */
export const RecordedResult = z.union([
  z.strictObject({ receipt_id: z.uuid() }),
  z.strictObject({ error: z.looseObject({ code: z.string(), detail: z.string() }) }),
]);
export type RecordedResult = z.infer<typeof RecordedResult>;

export const IdempotencyKeyUsed = z.object({
  namespace: z.string(),
  key: z.string(),
  /** SHA-256 of the canonical JSON of the call's input */
  fingerprint: z.string(),
  expires_at: instant,
  results: z.array(RecordedResult),
  /** the AdmitMutation commands of the admitted receipts, so a retry completes an admission a crash cut short */
  admissions: z.array(z.record(z.string(), z.unknown())),
});
export type IdempotencyKeyUsed = z.infer<typeof IdempotencyKeyUsed>;

export const CreationRequested = z.object({ receipt_id: z.uuid(), at: instant });

export const switchEventSchemas = { AdmissionsDisabled, AdmissionsEnabled } as const;
export type SwitchEvent = EventUnion<typeof switchEventSchemas>;
export const idempotencyEventSchemas = { IdempotencyKeyUsed } as const;
export type IdempotencyEvent = EventUnion<typeof idempotencyEventSchemas>;
export const creationEventSchemas = { CreationRequested } as const;
export type CreationEvent = EventUnion<typeof creationEventSchemas>;
