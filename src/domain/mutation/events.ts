import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';
import { ACTIONS, TARGET_TYPES } from './payloads.js';

// Events of a mutation receipt (spec 2.9, 3.4), one stream per receipt: `mutation-<id>`.
// Every transition that follows a provider call carries the call's raw answer.

export const STATUSES = ['queued', 'submitting', 'submitted', 'blocked', 'uncertain', 'unresolved'] as const;
export type Status = (typeof STATUSES)[number];
/** `pending` (list_mutations' status filter) = queued, submitting or uncertain */
export const PENDING_STATUSES = ['queued', 'submitting', 'uncertain'] as const satisfies readonly Status[];

export const OUTCOMES = ['accepted', 'rejected', 'retryable', 'blocked', 'uncertain', 'absent', 'unresolved'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Why a receipt is withheld: block flag, campaign Automation switch, or the target is gone. */
export const BLOCK_REASONS = ['listing_blocked', 'automation_switch_off', 'target_deleted'] as const;
export const UNCERTAIN_CAUSES = ['reply_lost', 'partial', 'ambiguous'] as const;

const TargetType = z.enum(TARGET_TYPES);

export const Target = z.object({ type: TargetType, id: z.string().min(1) });
/** What the marketplace created, once confirmed: local id (a uuid, as every local id) and provider id. */
export const Created = z.object({ type: TargetType, id: z.uuid(), providerId: z.string().min(1) });
export type Created = z.infer<typeof Created>;
/** A provider or service error: `code` is the provider's reason or our own block reason. */
export const ReceiptError = z.object({
  code: z.string(),
  message: z.string(),
  /** a blocked receipt's: why it was withheld (listing_blocked, automation_switch_off, target_deleted) */
  reason: z.string().optional(),
});
export type ReceiptError = z.infer<typeof ReceiptError>;

/** A withheld receipt's error: spec 7's `blocked`, with the reason it was withheld. */
export const blockedError = (reason: string, message: string): ReceiptError => ({ code: 'blocked', reason, message });

export const Idempotency = z.object({
  /** the caller's MCP namespace (the user); keys never cross namespaces */
  namespace: z.string(),
  key: z.string().min(1),
  /** SHA-256 of the canonical JSON of the admitted input */
  fingerprint: z.string(),
  expires_at: instant,
});
export type Idempotency = z.infer<typeof Idempotency>;

/** The provider call a transition answers. */
const ProviderCall = {
  attempt: z.number().int().positive(),
  http_status: z.number().int().nullable(),
  response: z.unknown(),
  request_id: z.string().nullable(),
  error: ReceiptError.nullable(),
  recorded_at: instant,
};

/**
 * The automation run that admitted a receipt (spec 2.9 has no field for it): the marketplace event
 * it handled, the automation and code version that ran, the run, and the listing it ran for.
 */
export const CausedBy = z.object({
  automation_id: z.uuid(),
  automation_version: z.number().int().positive(),
  /** null for a run on a fabricated event (a dry run's sample) */
  event_id: z.string().min(1).nullable(),
  run_id: z.uuid(),
  /** the source listing of a listing-triggered run; null for the other scopes */
  listing_id: z.uuid().nullable(),
});
export type CausedBy = z.infer<typeof CausedBy>;

/**
 * A revert's cause (an extension beyond spec 2.9, docs/decisions/125-revert.md): the receipt whose
 * change it undoes, restoring the value that receipt recorded it replaced (`prior`).
 */
export const Reverts = z.object({ reverts: z.uuid() });
export type Reverts = z.infer<typeof Reverts>;

/** What caused a receipt besides the tool call that admitted it: an automation run, or a revert. */
export const ReceiptCause = z.union([CausedBy, Reverts]);
export type ReceiptCause = z.infer<typeof ReceiptCause>;

/**
 * What a tool call that admitted a receipt came through (docs/decisions/103-who-did-it.md): the
 * OAuth client the user authorized, or the user's personal access token (its id, never the token).
 */
export const Via = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('oauth_client'), client_id: z.string().min(1) }),
  z.object({ kind: z.literal('personal_access_token'), token_id: z.uuid() }),
]);
export type Via = z.infer<typeof Via>;

export const MutationAdmitted = z.object({
  receipt_id: z.uuid(),
  account_id: z.uuid(),
  target: Target,
  /** provider ids of the target and its parents, resolved at admission (e.g. profileId, campaignId, sku, marketplaceId) */
  provider: z.record(z.string(), z.string()),
  action: z.enum(ACTIONS),
  payload: z.record(z.string(), z.unknown()),
  idempotency: Idempotency.nullable(),
  created_at: instant,
  /** null: queued; else admitted already blocked (listing blocked or campaign switch off) */
  blocked: z.object({ reason: z.enum(['listing_blocked', 'automation_switch_off']), message: z.string() }).nullable(),
  /** the automation run that admitted it, or the receipt it reverts; null or absent otherwise */
  caused_by: ReceiptCause.nullable().optional(),
  /** the client or token of the tool call that admitted it; absent for automation runs, over stdio and before it was recorded */
  via: Via.optional(),
  /** the qualified catalog operation key it was queued as (`action` is what it carries out); absent for the six actions and on older receipts */
  operation: z.string().min(1).optional(),
});
/** What a verification read of a changed target showed (the entity, or the listing attributes the patches name; null when gone). */
const Observed = z.unknown();

/** `prior`: the part of the target the request names, read just before it was sent (null: the
 * target did not exist; absent: not read, e.g. a creation or a failed read). Reconciliation
 * settles a lost answer `absent` only when the target still shows this. */
export const MutationDispatchStarted = z.object({
  receipt_id: z.uuid(),
  attempt: z.number().int().positive(),
  started_at: instant,
  prior: Observed.optional(),
  /** a listing's patches sent in one call: the receipts whose patches it carried, in order, this one included (absent: sent alone) */
  sent_with: z.array(z.uuid()).min(2).optional(),
});
export const MutationSubmitted = z.object({
  receipt_id: z.uuid(),
  ...ProviderCall,
  /** listing patches: the Listings Items submission id */
  submission_id: z.string().nullable(),
  accepted: z.boolean(),
  /** a creation the answer already confirms */
  created: Created.nullable(),
});
export const MutationRetryScheduled = z.object({ receipt_id: z.uuid(), ...ProviderCall });
export const MutationBlocked = z.object({
  receipt_id: z.uuid(),
  reason: z.enum(BLOCK_REASONS),
  message: z.string(),
  recorded_at: instant,
});
export const MutationUncertain = z.object({
  receipt_id: z.uuid(),
  ...ProviderCall,
  attempt: z.number().int().positive().nullable(),
  cause: z.enum(UNCERTAIN_CAUSES),
});

/** What an unresolved change's target showed instead (neither the requested values nor the prior ones). */
export const ObservedCandidate = z.object({ observed: z.unknown() });
/** A candidate on a receipt: an entity a creation may have made, or the values a change's target shows. */
export const Candidate = z.union([Created, ObservedCandidate]);
export type Candidate = z.infer<typeof Candidate>;

export const Reconciliation = z.object({
  result: z.enum(['pending', 'accepted', 'absent', 'unresolved']),
  attempts: z.number().int().nonnegative(),
  /** null until the first check */
  checkedAt: instant.nullable(),
  /** when the next check is due; null once settled */
  nextAt: instant.nullable(),
  candidates: z.array(Candidate),
  cause: z.string(),
});
export type Reconciliation = z.infer<typeof Reconciliation>;

/** An uncertain receipt's reconciliation before its first check: in doubt, due now (spec 2.9: empty only when never in doubt). */
export const awaitingCheck = (uncertain: {
  cause: (typeof UNCERTAIN_CAUSES)[number];
  recorded_at: string;
}): Reconciliation => ({
  result: 'pending',
  attempts: 0,
  checkedAt: null,
  nextAt: uncertain.recorded_at,
  candidates: [],
  cause: `${uncertain.cause.replace('_', ' ')}: not checked yet`,
});

/** A reconciliation check found nothing yet: stays uncertain, checked again at nextAt. */
export const MutationReconciliationChecked = z.object({
  receipt_id: z.uuid(),
  reconciliation: Reconciliation,
  observed: Observed.optional(),
});
export const MutationCreationConfirmed = z.object({
  receipt_id: z.uuid(),
  created: Created,
  reconciliation: Reconciliation,
});
export const MutationCreationAbsent = z.object({ receipt_id: z.uuid(), reconciliation: Reconciliation });
export const MutationUnresolved = z.object({ receipt_id: z.uuid(), reconciliation: Reconciliation });
/** Either verdict on an uncertain change records the same: the reconciliation and what its target showed. */
const ChangeVerdict = z.object({ receipt_id: z.uuid(), reconciliation: Reconciliation, observed: Observed });
/** An uncertain update, archive or listing patch whose target was read back showing every requested value. */
export const MutationChangeConfirmed = ChangeVerdict;
/** An uncertain update, archive or listing patch whose target still did not show it 10 minutes later. */
export const MutationChangeAbsent = ChangeVerdict;
/** The marketplace deleted the target while a submission was under way: it stays as it is until resolved. */
export const MutationTargetDeleted = z.object({ receipt_id: z.uuid(), recorded_at: instant });

export const mutationEventSchemas = {
  MutationAdmitted,
  MutationDispatchStarted,
  MutationSubmitted,
  MutationRetryScheduled,
  MutationBlocked,
  MutationUncertain,
  MutationReconciliationChecked,
  MutationCreationConfirmed,
  MutationCreationAbsent,
  MutationUnresolved,
  MutationChangeConfirmed,
  MutationChangeAbsent,
  MutationTargetDeleted,
} as const;

type Schemas = typeof mutationEventSchemas;
export type MutationEventType = keyof Schemas;
export type MutationEvent = EventUnion<Schemas>;
export type MutationEventOf<K extends MutationEventType> = Extract<MutationEvent, { type: K }>;
