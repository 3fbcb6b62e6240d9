import type { Action } from './payloads.js';
import {
  awaitingCheck,
  blockedError,
  type Created,
  type MutationEvent,
  type Outcome,
  type Reconciliation,
  type ReceiptError,
  type Status,
} from './events.js';

// A receipt's state: its workflow status, the last recorded outcome, and what the decider needs
// to refuse illegal transitions (attempts, when it became uncertain, whether it is a creation).

export interface ReceiptState {
  /** null until admitted */
  status: Status | null;
  outcome: Outcome | null;
  action: Action | null;
  /** dispatches started so far */
  attempts: number;
  /** when the receipt last became uncertain (reconciliation counts its 10 minutes from here) */
  uncertain_since: string | null;
  reconciliation: Reconciliation | null;
  created: Created | null;
  error: ReceiptError | null;
  target_deleted: boolean;
}

export const initialState = (): ReceiptState => ({
  status: null,
  outcome: null,
  action: null,
  attempts: 0,
  uncertain_since: null,
  reconciliation: null,
  created: null,
  error: null,
  target_deleted: false,
});

export function evolve(state: ReceiptState, event: MutationEvent): ReceiptState {
  switch (event.type) {
    case 'MutationAdmitted': {
      const { blocked } = event.data;
      return {
        ...state,
        status: blocked ? 'blocked' : 'queued',
        outcome: blocked ? 'blocked' : null,
        action: event.data.action,
        error: blocked && blockedError(blocked.reason, blocked.message),
      };
    }
    case 'MutationDispatchStarted':
      return { ...state, status: 'submitting', attempts: event.data.attempt };
    case 'MutationSubmitted':
      return {
        ...state,
        status: 'submitted',
        outcome: event.data.accepted ? 'accepted' : 'rejected',
        error: event.data.error,
        created: event.data.created,
      };
    case 'MutationRetryScheduled':
      return { ...state, status: 'queued', outcome: 'retryable', error: event.data.error };
    case 'MutationBlocked':
      return {
        ...state,
        status: 'blocked',
        outcome: 'blocked',
        error: blockedError(event.data.reason, event.data.message),
      };
    case 'MutationUncertain':
      return {
        ...state,
        status: 'uncertain',
        outcome: 'uncertain',
        error: event.data.error,
        uncertain_since: event.data.recorded_at,
        reconciliation: awaitingCheck(event.data),
      };
    case 'MutationReconciliationChecked':
      return { ...state, reconciliation: event.data.reconciliation };
    case 'MutationCreationConfirmed':
      return {
        ...state,
        status: 'submitted',
        outcome: 'accepted',
        created: event.data.created,
        reconciliation: event.data.reconciliation,
      };
    case 'MutationCreationAbsent':
      return { ...state, status: 'submitted', outcome: 'absent', reconciliation: event.data.reconciliation };
    case 'MutationChangeConfirmed':
      return { ...state, status: 'submitted', outcome: 'accepted', reconciliation: event.data.reconciliation };
    case 'MutationChangeAbsent':
      return { ...state, status: 'submitted', outcome: 'absent', reconciliation: event.data.reconciliation };
    case 'MutationUnresolved':
      return { ...state, status: 'unresolved', outcome: 'unresolved', reconciliation: event.data.reconciliation };
    case 'MutationTargetDeleted':
      return { ...state, target_deleted: true };
  }
}
