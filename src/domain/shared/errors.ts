// Error codes of spec section 7, exactly as the interface names them.
export const ERROR_CODES = [
  'account_required',
  'account_not_found',
  'not_connected',
  'owner_not_connected',
  'stream_type_not_for_entity',
  'invalid',
  'unknown_argument',
  'invalid_window',
  'unknown_stream_type',
  'code_too_large',
  'event_too_large',
  'marketplace_required',
  'listing_not_found',
  'ambiguous_sku',
  'no_updates',
  'too_many_updates',
  'no_fields',
  'rate_limited',
  'throttled',
  'busy',
  'automation_not_found',
  'activation_conflict',
  'automation_or_code_required',
  'ambiguous_target',
  'stream_type_required',
  'event_not_found',
  'stream_type_mismatch',
  'listing_required',
  'event_not_replayable',
  'execution_error',
  'blocked',
  'conflict',
  'amazon_error',
  'schema_unavailable',
  'not_found',
  'missing_sql',
  'timeout',
  'query_failed',
  'unavailable',
  'stale_revision',
  'schema_changed',
  'operation_unavailable',
  'target_not_found',
  'scope_mismatch',
  'invalid_parameters',
  'deadline_exceeded',
  'amazon_unavailable',
  'invalid_response',
  'response_too_large',
  'invalid_cursor',
  'idempotency_conflict',
  'admissions_disabled',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** A known problem answered with a spec error code; never a crash. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(`${code}: ${detail}`);
    this.name = 'DomainError';
  }
}
