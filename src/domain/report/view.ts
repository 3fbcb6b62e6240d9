import { canonicalJson, sha256 } from '../shared/canonical.js';
import type { ReportState } from './decide.js';
import type { ReportCorrelation } from './events.js';

// A report receipt as tools and the Report context show it (spec 2.11). Pure: from the state.

export type ReportStatus = 'queued' | 'submitted' | 'transferred' | 'completed';

export interface ReportView {
  mutation_id: string;
  account_id: string;
  status: ReportStatus;
  operation: string | null;
  target: { type: string; id: string };
  catalog_revision: string;
  marketplace_ids: string[];
  provider_id: string | null;
  /** the provider's last known status (terminal once completed), distinct from ingestion */
  provider_status: string | null;
  ingestion_status: 'not_scheduled' | null;
  byte_size: number | null;
  media_type: string | null;
  checksum: string | null;
  expires_at: string | null;
  previous_page: string | null;
  has_continuation: boolean;
  digest: string;
  correlation: ReportCorrelation | null;
  depth: number;
  error: string | null;
  requested_at: string;
  completed_at: string | null;
}

export function reportView(state: ReportState): ReportView {
  const r = state.requested;
  if (!r) throw new Error('reportView: no report was requested');
  const a = state.artifact;
  return {
    mutation_id: r.mutation_id,
    account_id: r.account_id,
    status: state.finalized ? 'completed' : a ? 'transferred' : state.provider_id ? 'submitted' : 'queued',
    operation: r.operation,
    target: r.target,
    catalog_revision: r.catalog_revision,
    marketplace_ids: r.marketplace_ids,
    provider_id: state.provider_id,
    provider_status: state.provider_status,
    ingestion_status: state.finalized?.ingestion_status ?? null,
    byte_size: a?.byte_size ?? null,
    media_type: a?.media_type ?? null,
    checksum: a?.checksum ?? null,
    expires_at: a?.expires_at ?? null,
    previous_page: r.previous_page,
    has_continuation: a?.continuation_token != null,
    digest: executionDigest(r),
    correlation: r.correlation,
    depth: r.depth,
    error: state.finalized?.error ?? null,
    requested_at: r.at,
    completed_at: state.finalized?.at ?? null,
  };
}

/** What the provider was asked to execute, as one digest: operation, scope, parameters and the page followed. */
export const executionDigest = (r: NonNullable<ReportState['requested']>): string =>
  sha256(
    canonicalJson({
      operation: r.operation,
      marketplace_ids: r.marketplace_ids,
      profile_id: r.profile_id,
      parameters: r.parameters,
      previous_page: r.previous_page,
    }),
  );
