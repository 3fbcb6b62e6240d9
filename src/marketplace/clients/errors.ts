// The one error type the marketplace clients throw: callers map it to the spec's error
// codes (amazon_error, amazon_unavailable, rate_limited, invalid_response, ...).
export interface MarketplaceErrorInit {
  /** HTTP status of the provider's answer; null when no answer arrived (network error, timeout). */
  status: number | null;
  /** The provider's error code (`invalid_grant`, `QuotaExceeded`, `UNAUTHORIZED`, ...) or ours:
   * `network_error`, `timeout`, `invalid_response`. */
  code: string;
  message: string;
  /** True when the same request may succeed later (429, 5xx, network errors, timeouts). */
  retryable: boolean;
  /** The wait the provider asked for (Retry-After, or derived from x-amzn-RateLimit-Limit). */
  retryAfterMs?: number;
  /** The provider's request id of the answer, when one arrived. */
  requestId?: string | null;
  /** The answer's body as sent (parsed JSON, else text), when one arrived. */
  body?: unknown;
}

export class MarketplaceError extends Error {
  override readonly name = 'MarketplaceError';
  readonly status: number | null;
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly requestId: string | null;
  readonly body: unknown;

  constructor(init: MarketplaceErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.requestId = init.requestId ?? null;
    this.body = init.body;
  }

  toJSON() {
    return { name: this.name, status: this.status, code: this.code, message: this.message, retryable: this.retryable };
  }
}
