import { decide, type MutationCommand } from '../../domain/mutation/decide.js';
import type { Action, TargetType } from '../../domain/mutation/payloads.js';
import { evolve, initialState } from '../../domain/mutation/state.js';
import type { DomainError } from '../../domain/shared/errors.js';
import type { Receipt } from '../mutation/execute.js';

// What admission answers for each request: the receipt (as recorded, or as it would be), or a refusal.

export interface ReceiptView {
  id: string | null;
  account_id: string;
  status: string;
  outcome: string | null;
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

export type AdmissionResult =
  | { index: number; receipt: ReceiptView }
  | { index: number; error: { code: string; detail: string } & Record<string, unknown> };

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

export const errorBody = (e: DomainError): { code: string; detail: string } & Record<string, unknown> => ({
  code: e.code,
  detail: e.detail,
  ...e.extra,
});
