import { z } from 'zod';
import { decide, type MutationCommand } from '../../domain/mutation/decide.js';
import type { Outcome, Status } from '../../domain/mutation/events.js';
import type { Action, TargetType } from '../../domain/mutation/payloads.js';
import { evolve, initialState } from '../../domain/mutation/state.js';
import type { DomainError, ErrorCode } from '../../domain/shared/errors.js';
import { receiptSchema } from '../../projections/mutations/queries.js';
import type { Receipt } from '../mutation/execute.js';

// What admission answers for each request: the receipt (as recorded, or as it would be), or a refusal.

export interface ReceiptView {
  id: string | null;
  account_id: string;
  status: Status;
  outcome: Outcome | null;
  accepted: boolean | null;
  /** why a blocked receipt is withheld, or the last provider error of a replayed one */
  error: { code: string; message: string } | null;
  target_type: TargetType;
  target_id: string;
  action: Action;
  payload: Record<string, unknown>;
  provider: Record<string, string>;
  created_at: string;
  idempotency?: { key: string; expires_at: string };
}

/** ReceiptView as tools answer it (queue_mutations, patch_listing, run_automation): a receipt's fields as admitted. */
export const receiptViewSchema = z.object({
  id: z.string().nullable().describe('the receipt id, for get_mutation; null when simulated (demo, dry run)'),
  ...receiptSchema.pick({
    account_id: true,
    status: true,
    outcome: true,
    accepted: true,
    error: true,
    target_type: true,
    target_id: true,
    action: true,
    payload: true,
    provider: true,
    created_at: true,
    idempotency: true,
  }).shape,
});

/** A refusal: the DomainError's code, detail and extra fields, as a tool's error result carries them. */
export type AdmissionError = { code: ErrorCode; detail: string } & Record<string, unknown>;

export type AdmissionResult = { index: number; receipt: ReceiptView } | { index: number; error: AdmissionError };

export interface AdmissionOutcome {
  results: AdmissionResult[];
  replayed: boolean;
  idempotency: { key: string; expires_at: string } | null;
}

export type Admit = Extract<MutationCommand, { type: 'AdmitMutation' }>;

const ACCEPTED: Record<string, boolean> = { accepted: true, rejected: false, blocked: false, absent: false };

/** A receipt's answer; a simulated one has no id, since nothing was recorded. */
export function receiptView({ admitted, state }: Pick<Receipt, 'admitted' | 'state'>, simulated: boolean): ReceiptView {
  return {
    id: simulated ? null : admitted.receipt_id,
    account_id: admitted.account_id,
    status: state.status!,
    outcome: state.outcome,
    accepted: state.outcome === null || state.status === 'uncertain' ? null : (ACCEPTED[state.outcome] ?? null),
    error: state.error,
    target_type: admitted.target.type,
    target_id: admitted.target.id,
    action: admitted.action,
    payload: admitted.payload,
    provider: admitted.provider,
    created_at: admitted.created_at,
    ...(admitted.idempotency
      ? { idempotency: { key: admitted.idempotency.key, expires_at: admitted.idempotency.expires_at } }
      : {}),
  };
}

/** A receipt as the command would leave it, without recording it (MutationAdmitted records the command's fields). */
export function decidedView(command: Admit, simulated: boolean): ReceiptView {
  const state = decide(command, initialState()).reduce(evolve, initialState());
  const { type: _, ...admitted } = command;
  return receiptView({ admitted, state }, simulated);
}

export const errorBody = (e: DomainError): AdmissionError => ({
  code: e.code,
  detail: e.detail,
  ...e.extra,
});
