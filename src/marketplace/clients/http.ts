import pRetry from 'p-retry';
import type { z } from 'zod';
import { adsErrorSchema } from './ads-types.js';
import { MarketplaceError } from './errors.js';
import { lwaErrorSchema } from './lwa-types.js';
import { sellingErrorListSchema } from './selling-types.js';

// The one HTTP layer under the LWA, selling and ads clients: bounded attempts with
// exponential backoff (p-retry), a per-attempt timeout, Retry-After honoured, and every
// failure turned into a MarketplaceError.

export interface RetryPolicy {
  /** Total attempts, the first included. */
  attempts: number;
  /** Deadline of one attempt, answer body included. */
  timeoutMs: number;
  /** Backoff bounds between attempts. */
  minDelayMs: number;
  maxDelayMs: number;
  /** The longest provider-requested wait (Retry-After) to sit out here; a longer one ends the
   * retries and is left to the caller, in the error's retryAfterMs. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 5,
  timeoutMs: 10_000,
  minDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
};

export interface HttpRequest<T> {
  /** Names the API in error messages ("selling API"). */
  api: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  schema: z.ZodType<T>;
  /** `bytes`: the answer body is handed to `schema` as a Buffer, not parsed as JSON (report
   * documents, which are often gzip-compressed). Default `json`. */
  responseType?: 'json' | 'bytes';
  /** Safe to send again after a lost answer. Defaults to true except for POST and PATCH, which
   * are then retried only on 429 (the provider refused them before doing anything). */
  idempotent?: boolean;
  /** Told the HTTP status and request id of every answer that arrives (receipts record them). */
  onAnswer?: (answer: HttpAnswer) => void;
}

export interface HttpAnswer {
  status: number;
  /** x-amzn-RequestId (selling API) or Amazon-Advertising-API-Request-Id / x-amzn-RequestId (ads API) */
  requestId: string | null;
}

export type Http = <T>(request: HttpRequest<T>) => Promise<T>;

const USER_AGENT = 'marketplace-automation-service/0.1 (Language=TypeScript)';

export function createHttp(policy: Partial<RetryPolicy> = {}): Http {
  const p = { ...DEFAULT_RETRY_POLICY, ...policy };
  return <T>(request: HttpRequest<T>) => {
    const idempotent = request.idempotent ?? !['POST', 'PATCH'].includes(request.method);
    const worthRetrying = (error: Error): error is MarketplaceError =>
      error instanceof MarketplaceError &&
      error.retryable &&
      (idempotent || error.status === 429) &&
      (error.retryAfterMs ?? 0) <= p.maxRetryAfterMs;
    return pRetry(() => attempt(request, p.timeoutMs), {
      retries: p.attempts - 1,
      minTimeout: p.minDelayMs,
      maxTimeout: p.maxDelayMs,
      factor: 2,
      randomize: true,
      shouldRetry: ({ error }) => worthRetrying(error),
      // Sit out what the provider asked for here, in full: p-retry's own backoff after this
      // may be shortened by the time spent in this hook, so topping up by the difference
      // could come out short.
      onFailedAttempt: async ({ error, retriesLeft, retryDelay }) => {
        if (retriesLeft === 0 || !worthRetrying(error)) return;
        const asked = error.retryAfterMs ?? 0;
        if (asked > retryDelay) await new Promise((resolve) => setTimeout(resolve, asked));
      },
    });
  };
}

async function attempt<T>(request: HttpRequest<T>, timeoutMs: number): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT, ...request.headers };
  let body: string | undefined;
  if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form).toString();
  } else if (request.json !== undefined) {
    // the ads API's v3 resources take vendor types (application/vnd.spCampaign.v3+json)
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(request.json);
  }
  const where = `${request.api} ${request.method} ${new URL(request.url).pathname}`;
  let response: Response;
  let bytes: Buffer;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers,
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    bytes = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    throw transportError(where, error, timeoutMs);
  }
  const requestId =
    response.headers.get('x-amzn-requestid') ?? response.headers.get('amazon-advertising-api-request-id');
  request.onAnswer?.({ status: response.status, requestId });
  const text = request.responseType === 'bytes' && response.ok ? '' : bytes.toString('utf8');
  if (!response.ok) throw answerError(where, response, text, requestId);
  let parsed: unknown = bytes;
  if (request.responseType !== 'bytes') {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalidResponse(where, response.status, 'the answer is not JSON', requestId, text);
    }
  }
  const result = request.schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw invalidResponse(
      where,
      response.status,
      `unexpected shape at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      requestId,
      parsed,
    );
  }
  return result.data;
}

function transportError(where: string, error: unknown, timeoutMs: number): MarketplaceError {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return new MarketplaceError({
      status: null,
      code: 'timeout',
      message: `${where}: no answer within ${timeoutMs} ms`,
      retryable: true,
    });
  }
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new MarketplaceError({ status: null, code: 'network_error', message: `${where}: ${reason}`, retryable: true });
}

function answerError(where: string, response: Response, text: string, requestId: string | null): MarketplaceError {
  const status = response.status;
  const { code, message } = providerError(text) ?? { code: `http_${status}`, message: response.statusText };
  const retryable = status === 408 || status === 429 || status >= 500;
  return new MarketplaceError({
    status,
    code,
    message: `${where}: ${status} ${code}${message ? `: ${message}` : ''}`,
    retryable,
    retryAfterMs: status === 429 ? requestedWaitMs(response.headers) : undefined,
    requestId,
    body: parseOrText(text),
  });
}

const parseOrText = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** The error code and message of any of the three error dialects (selling, ads, LWA). */
function providerError(text: string): { code: string; message: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const selling = sellingErrorListSchema.safeParse(body);
  if (selling.success) {
    const first = selling.data.errors[0]!;
    return { code: first.code, message: [first.message, first.details].filter(Boolean).join(' ') };
  }
  const lwa = lwaErrorSchema.safeParse(body);
  if (lwa.success) return { code: lwa.data.error, message: lwa.data.error_description ?? '' };
  const ads = adsErrorSchema.safeParse(body);
  if (ads.success) return { code: ads.data.code, message: ads.data.details ?? ads.data.message ?? '' };
  return undefined;
}

/** Retry-After (seconds or a date); failing that, one request's worth of x-amzn-RateLimit-Limit. */
function requestedWaitMs(headers: Headers): number | undefined {
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return Math.max(0, at - Date.now());
  }
  const rate = Number(headers.get('x-amzn-ratelimit-limit'));
  return rate > 0 ? 1000 / rate : undefined;
}

function invalidResponse(
  where: string,
  status: number,
  why: string,
  requestId: string | null,
  body: unknown,
): MarketplaceError {
  return new MarketplaceError({
    status,
    code: 'invalid_response',
    message: `${where}: ${why}`,
    retryable: false,
    requestId,
    body: Buffer.isBuffer(body) ? undefined : body,
  });
}

/** Joins an endpoint (which may carry a path prefix) and an API path. */
export function endpointUrl(endpoint: string, path: string): string {
  return endpoint.replace(/\/+$/, '') + path;
}
