import type { AttemptOutcome } from './events.js';

// Which attempts are tried again, and when (spec 4.13, docs/decisions/074-webhook-delivery.md): timeouts,
// network errors, 429 and 5xx retry with backoff, up to 5 attempts; a `Retry-After` on such
// an answer (seconds or an HTTP date) sets the wait instead, capped; other 4xx, redirects
// (never followed) and refused addresses end the delivery at once.

export interface DeliveryPolicy {
  maxAttempts: number;
  /** wait after the first failed attempt; each later wait is `backoffFactor` times longer */
  backoffMs: number;
  backoffFactor: number;
  /** the longest wait a `Retry-After` may ask for */
  maxRetryAfterMs: number;
}

/** 5 attempts; waits of 5 s, 20 s, 80 s, 320 s (about 7 minutes in all); Retry-After up to 10 minutes. */
export const DELIVERY_POLICY: DeliveryPolicy = {
  maxAttempts: 5,
  backoffMs: 5_000,
  backoffFactor: 4,
  maxRetryAfterMs: 600_000,
};

/** Why no HTTP answer came: `refused` is the address guard (or a URL the policy no longer allows). */
export type AttemptFailure = { kind: 'timeout' | 'network' | 'refused'; message: string };

/** What one attempt saw. */
export interface AttemptResult {
  status: number | null;
  failure: AttemptFailure | null;
  /** the raw `Retry-After` and `Location` headers of the answer */
  retry_after: string | null;
  location: string | null;
}

/** `Retry-After` as a wait in ms from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // an HTTP date starts with the day's name (RFC 9110 5.6.7)
  const date = /^[A-Za-z]{3}/.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}

function verdict(r: AttemptResult): { retryable: boolean; error: string | null } {
  if (r.failure) return { retryable: r.failure.kind !== 'refused', error: r.failure.message };
  const status = r.status!;
  if (status >= 200 && status < 300) return { retryable: false, error: null };
  if (status >= 300 && status < 400)
    return { retryable: false, error: `HTTP ${status}: redirect to ${r.location ?? '(no Location)'} not followed` };
  if (status === 429 || status >= 500) return { retryable: true, error: `HTTP ${status}` };
  return { retryable: false, error: `HTTP ${status}: not retried` };
}

/** The attempt's outcome, its error, and when the next attempt is due (null when none is). */
export function judgeAttempt(
  attempt: number,
  r: AttemptResult,
  at: Date,
  policy: DeliveryPolicy,
): { outcome: AttemptOutcome; error: string | null; next_attempt_at: string | null } {
  const { retryable, error } = verdict(r);
  if (error === null) return { outcome: 'delivered', error, next_attempt_at: null };
  if (!retryable) return { outcome: 'failed', error, next_attempt_at: null };
  if (attempt >= policy.maxAttempts)
    return {
      outcome: 'failed',
      error: `${error} (attempt ${attempt} of ${policy.maxAttempts}: no retries left)`,
      next_attempt_at: null,
    };
  const asked = r.status === null ? null : retryAfterMs(r.retry_after, at);
  const wait =
    asked !== null ? Math.min(asked, policy.maxRetryAfterMs) : policy.backoffMs * policy.backoffFactor ** (attempt - 1);
  return { outcome: 'retry', error, next_attempt_at: new Date(at.getTime() + wait).toISOString() };
}
