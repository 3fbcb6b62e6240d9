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
}

export class MarketplaceError extends Error {
  override readonly name = 'MarketplaceError';
  readonly status: number | null;
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(init: MarketplaceErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
  }

  toJSON() {
    return { name: this.name, status: this.status, code: this.code, message: this.message, retryable: this.retryable };
  }
}
