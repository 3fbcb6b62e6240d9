import type { Receipt } from '../../projections/mutations/queries.js';

// A receipt (spec 2.9) as contexts list it under `mutations`, in the context's camelCase.

export function receiptInContext(r: Receipt): Record<string, unknown> {
  return {
    id: r.id,
    action: r.action,
    status: r.status,
    outcome: r.outcome,
    accepted: r.accepted,
    httpStatus: r.http_status,
    response: r.response ?? null,
    error: r.error,
    requestId: r.request_id,
    submissionId: r.submission_id,
    recordedAt: r.recorded_at,
    targetType: r.target_type,
    targetId: r.target_id,
    created: r.created,
    reconciliation: r.reconciliation,
    payload: r.payload,
  };
}
