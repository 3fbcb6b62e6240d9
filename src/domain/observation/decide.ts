import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { canonicalJson, sha256 } from '../shared/canonical.js';
import { stableId } from '../shared/ids.js';
import { observationEventSchemas, type ObservationEvent, type ObservationKey } from './events.js';

// One stream per observed page (`observation-<id of account, dataset, scope, page>`) and
// one per scope for completions, so each decision folds a stream of a few events only.

export type ObservationCommand =
  | (ObservationKey & { type: 'ObservePage'; page: number; rows: unknown[]; observed_at: string })
  | (ObservationKey & { type: 'CompleteSync'; pages: number; observed_at: string });

export interface ObservationState {
  /** hash of the page's rows as last recorded */
  hash: string | null;
  /** page count of the last completed read */
  pages: number | null;
}

export const pageStreamId = (k: ObservationKey, page: number): string =>
  stableId('observation-page', `${k.account_id}/${k.dataset}/${k.scope}/${page}`);
export const scopeStreamId = (k: ObservationKey): string =>
  stableId('observation-scope', `${k.account_id}/${k.dataset}/${k.scope}`);

export const hashRows = (rows: unknown[]): string => sha256(canonicalJson(rows));

export const initialState = (): ObservationState => ({ hash: null, pages: null });

export function evolve(state: ObservationState, event: ObservationEvent): ObservationState {
  return event.type === 'PageObserved' ? { ...state, hash: event.data.hash } : { ...state, pages: event.data.pages };
}

export function decide(command: ObservationCommand, state: ObservationState): ObservationEvent[] {
  const { account_id, dataset, scope, observed_at } = command;
  if (command.type === 'ObservePage') {
    if (!Number.isInteger(command.page) || command.page < 0)
      throw new DomainError('invalid', `page: ${command.page} is not a page number`);
    const hash = hashRows(command.rows);
    if (hash === state.hash) return [];
    return [
      {
        type: 'PageObserved',
        data: { account_id, dataset, scope, page: command.page, hash, rows: command.rows, observed_at },
      },
    ];
  }
  if (!Number.isInteger(command.pages) || command.pages < 0)
    throw new DomainError('invalid', `pages: ${command.pages} is not a page count`);
  if (command.pages === state.pages) return [];
  return [{ type: 'SyncCompleted', data: { account_id, dataset, scope, pages: command.pages, observed_at } }];
}

export const observationDecider: Decider<ObservationCommand, ObservationState, ObservationEvent> = {
  aggregate: 'observation',
  schemas: observationEventSchemas,
  initialState,
  evolve,
  decide,
};
