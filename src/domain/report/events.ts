import { z } from 'zod';
import type { EventUnion } from '../shared/decider.js';
import { instant } from '../shared/instant.js';

// One report request (spec 4.9 request_report, 2.11): `report-<mutation id>`, from its admission
// to its finalization. Which provider API carries it decides the completion's event type
// (SELLING_REPORT_COMPLETED or ADS_REPORT_COMPLETED, spec 6.3).

export const ReportApi = z.enum(['reports', 'dataKiosk', 'ads']);
export type ReportApi = z.infer<typeof ReportApi>;

/** The provider's terminal status as the report receipt states it (spec 2.11). */
export const ProviderTerminal = z.enum(['DONE', 'CANCELLED', 'FATAL']);
export type ProviderTerminal = z.infer<typeof ProviderTerminal>;

/** Customer-requested artifacts are never imported automatically (spec 2.11): their ingestion is never scheduled. */
export const IngestionStatus = z.enum(['not_scheduled']);

/** When an automation run requested the report: where it came from (spec 2.11's correlation object). */
export const ReportCorrelation = z.object({
  /** the report receipt that began the chain (this one's own id at depth 1) */
  root: z.string(),
  /** the report receipt whose completion ran the automation; null when another event did */
  parent: z.string().nullable(),
  /** the recorded event the run handled */
  event: z.string(),
  /** the automation run (its delivery of the event) */
  delivery: z.string(),
  /** the request's position in the run's context.mutations */
  output: z.number().int(),
});
export type ReportCorrelation = z.infer<typeof ReportCorrelation>;

export const ReportRequested = z.object({
  mutation_id: z.uuid(),
  account_id: z.uuid(),
  /** whose idempotency keys and outstanding limit it counts against: `user:<id>` or `automation:<id>` */
  namespace: z.string().min(1),
  idempotency_key: z.string(),
  /** SHA-256 of the canonical input: the same key with another input is idempotency_conflict */
  fingerprint: z.string(),
  /** the qualified operation key; null for an adopted request whose payload was not kept */
  operation: z.string().nullable(),
  api: ReportApi,
  catalog_revision: z.string(),
  target: z.object({ type: z.string(), id: z.string() }),
  /** what the target resolved to: the request's marketplaces and, for ads, the profile */
  marketplace_ids: z.array(z.string()),
  profile_id: z.string().nullable(),
  /** the native request body as admitted */
  parameters: z.record(z.string(), z.unknown()),
  /** the receipt whose continuation this page follows */
  previous_page: z.string().nullable(),
  /** the provider's continuation token of the previous page (never shown) */
  continuation_token: z.string().nullable(),
  automation_id: z.uuid().nullable(),
  correlation: ReportCorrelation.nullable(),
  /** 1 for a request a caller made; a completion-run's request is its parent's depth + 1 (at most 5) */
  depth: z.number().int().min(1),
  at: instant,
});
export type ReportRequestedData = z.infer<typeof ReportRequested>;

export const ReportSubmitted = z.object({ provider_id: z.string().min(1), at: instant });
/** A status the provider answered that differs from the last one recorded. */
export const ReportStatusChecked = z.object({ provider_status: z.string(), at: instant });
/** A status check a caller asked for (get_operation_result `refresh`). */
export const ReportRefreshRequested = z.object({ by: z.string(), at: instant });
/** The artifact, transferred and stored protected (its bytes outside the log). */
export const ReportArtifactStored = z.object({
  byte_size: z.number().int().min(0),
  media_type: z.string(),
  checksum: z.string(),
  expires_at: instant,
  /** the provider's continuation of this page, when there is one (never shown) */
  continuation_token: z.string().nullable(),
  at: instant,
});
export const ReportFinalized = z.object({
  provider_status: ProviderTerminal,
  ingestion_status: IngestionStatus,
  /** why no artifact came, when none did */
  error: z.string().nullable(),
  at: instant,
});

/** The completion event (spec 6.3) is in the log: the worker is done with the request. */
export const ReportCompletionRecorded = z.object({ at: instant });

export const reportEventSchemas = {
  ReportRequested,
  ReportSubmitted,
  ReportStatusChecked,
  ReportRefreshRequested,
  ReportArtifactStored,
  ReportFinalized,
  ReportCompletionRecorded,
} as const;
export type ReportEvent = EventUnion<typeof reportEventSchemas>;
export const REPORT_EVENT_TYPES = Object.keys(reportEventSchemas) as ReportEvent['type'][];
