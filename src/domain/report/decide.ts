import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { reportEventSchemas, type ProviderTerminal, type ReportEvent, type ReportRequestedData } from './events.js';

// A report request's life (spec 2.11, 3): admitted, submitted to the provider (its id known),
// its status checked, its artifact transferred, then finalized once. Every step is recorded once:
// a worker that runs a step again after a crash decides nothing new.

export interface ReportArtifact {
  byte_size: number;
  media_type: string;
  checksum: string;
  expires_at: string;
  continuation_token: string | null;
}

export interface ReportState {
  requested: ReportRequestedData | null;
  provider_id: string | null;
  provider_status: string | null;
  artifact: ReportArtifact | null;
  finalized: {
    provider_status: ProviderTerminal;
    ingestion_status: 'not_scheduled';
    error: string | null;
    at: string;
  } | null;
  /** a caller's refresh not yet followed by a status check */
  refresh_requested_at: string | null;
  /** the completion event is recorded: nothing is left to do */
  completion_recorded: boolean;
}

export type ReportCommand =
  | { type: 'RequestReport'; request: ReportRequestedData }
  | { type: 'RecordSubmission'; provider_id: string; at: string }
  | { type: 'RecordStatus'; provider_status: string; at: string }
  | { type: 'RequestRefresh'; by: string; at: string }
  | { type: 'StoreArtifact'; artifact: ReportArtifact; at: string }
  | { type: 'Finalize'; provider_status: ProviderTerminal; error: string | null; at: string }
  | { type: 'MarkCompletionRecorded'; at: string };

export const initialReportState = (): ReportState => ({
  requested: null,
  provider_id: null,
  provider_status: null,
  artifact: null,
  finalized: null,
  refresh_requested_at: null,
  completion_recorded: false,
});

/** Reports whose request is admitted but not yet finalized count against the outstanding limit. */
export const isOutstanding = (state: ReportState): boolean => state.requested !== null && state.finalized === null;

/**
 * A second request with the same idempotency key: the same input replays the first receipt,
 * another input is `idempotency_conflict` (spec 4.8's rule, applied to request_report).
 */
export function replayVerdict(first: ReportRequestedData, fingerprint: string): 'replay' {
  if (first.fingerprint === fingerprint) return 'replay';
  throw new DomainError(
    'idempotency_conflict',
    `idempotency_key '${first.idempotency_key}' already requested report ${first.mutation_id} with a different input; nothing was queued. Use a new key for a new request`,
    { argument: 'idempotency_key' },
  );
}

/** Whether a refresh would schedule a status check: the provider's id is known and the request is not final. */
export const refreshable = (state: ReportState): boolean => state.provider_id !== null && state.finalized === null;

export const reportDecider: Decider<ReportCommand, ReportState, ReportEvent> = {
  aggregate: 'report',
  schemas: reportEventSchemas,
  initialState: initialReportState,
  evolve(state, event) {
    switch (event.type) {
      case 'ReportRequested':
        return { ...state, requested: event.data };
      case 'ReportSubmitted':
        return { ...state, provider_id: event.data.provider_id };
      case 'ReportStatusChecked':
        return { ...state, provider_status: event.data.provider_status, refresh_requested_at: null };
      case 'ReportRefreshRequested':
        return { ...state, refresh_requested_at: event.data.at };
      case 'ReportArtifactStored': {
        const { at: _, ...artifact } = event.data;
        return { ...state, artifact };
      }
      case 'ReportFinalized':
        return {
          ...state,
          provider_status: event.data.provider_status,
          refresh_requested_at: null,
          finalized: {
            provider_status: event.data.provider_status,
            ingestion_status: event.data.ingestion_status,
            error: event.data.error,
            at: event.data.at,
          },
        };
      case 'ReportCompletionRecorded':
        return { ...state, completion_recorded: true };
    }
  },
  decide(command, state) {
    if (command.type === 'RequestReport')
      return state.requested ? [] : [{ type: 'ReportRequested', data: command.request }];
    if (!state.requested) throw new Error(`${command.type}: no report was requested on this stream`);
    if (command.type === 'MarkCompletionRecorded') {
      if (!state.finalized) throw new Error('MarkCompletionRecorded: the request is not finalized');
      return state.completion_recorded ? [] : [{ type: 'ReportCompletionRecorded', data: { at: command.at } }];
    }
    if (state.finalized) return [];
    switch (command.type) {
      case 'RecordSubmission':
        return state.provider_id
          ? []
          : [{ type: 'ReportSubmitted', data: { provider_id: command.provider_id, at: command.at } }];
      case 'RecordStatus':
        // only a change is worth a record, unless a caller's refresh waits for this check
        return state.provider_status === command.provider_status && !state.refresh_requested_at
          ? []
          : [{ type: 'ReportStatusChecked', data: { provider_status: command.provider_status, at: command.at } }];
      case 'RequestRefresh':
        return refreshable(state) && !state.refresh_requested_at
          ? [{ type: 'ReportRefreshRequested', data: { by: command.by, at: command.at } }]
          : [];
      case 'StoreArtifact':
        if (!state.provider_id) throw new Error('StoreArtifact: the report was never submitted');
        return state.artifact ? [] : [{ type: 'ReportArtifactStored', data: { ...command.artifact, at: command.at } }];
      case 'Finalize':
        return [
          {
            type: 'ReportFinalized',
            data: {
              provider_status: command.provider_status,
              ingestion_status: 'not_scheduled',
              error: command.error,
              at: command.at,
            },
          },
        ];
    }
  },
};
