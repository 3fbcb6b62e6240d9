import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { AttemptResult } from '../../domain/webhook/retry.js';

// One HTTP attempt of a delivery: a JSON POST that never follows redirects (node:http doesn't),
// gives up after the timeout, and keeps the first 10 KB of the answer. Addresses are checked by
// request-filtering-agent when the socket connects, on the address DNS returned for that very
// connection (or the literal IP), so a name that resolves to a private address, now or only at
// delivery time (DNS rebinding), is refused like the address itself.

/** Spec 8: a delivery attempt gives up after 10 seconds. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Spec 8: the first 10 KB of each response is kept. */
export const RESPONSE_EXCERPT_BYTES = 10 * 1024;

export interface PosterOptions {
  /** let deliveries reach private, loopback, link-local, CGNAT and metadata addresses, over plain http too */
  allowPrivateNetworks: boolean;
  timeoutMs?: number;
  /** DNS resolution for the connection (tests resolve names their own way); default dns.lookup */
  lookup?: LookupFunction;
}

export interface AttemptAnswer extends AttemptResult {
  response: string | null;
  duration_ms: number;
}

export interface Poster {
  post(url: string, headers: Record<string, string>, body: string): Promise<AttemptAnswer>;
  close(): void;
}

/** The agent's refusals are plain errors with this message, no code. */
const refusedByGuard = (err: Error & { code?: string }) =>
  !err.code && /^DNS lookup .* is not allowed/.test(err.message);

const describe = (err: Error & { code?: string }) => (err.code ? `${err.code}: ${err.message}` : err.message);

export function createPoster(o: PosterOptions): Poster {
  const timeoutMs = o.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  // no keep-alive: every attempt connects, so every attempt's address is checked
  const filter = { allowPrivateIPAddress: o.allowPrivateNetworks, allowMetaIPAddress: o.allowPrivateNetworks };
  const agents = {
    'http:': new RequestFilteringHttpAgent({ ...filter, keepAlive: false }),
    'https:': new RequestFilteringHttpsAgent({ ...filter, keepAlive: false }),
  };
  const refused = (message: string, started: number): AttemptAnswer => ({
    status: null,
    failure: { kind: 'refused', message },
    retry_after: null,
    location: null,
    response: null,
    duration_ms: Math.round(performance.now() - started),
  });

  async function post(url: string, headers: Record<string, string>, body: string): Promise<AttemptAnswer> {
    const started = performance.now();
    const target = new URL(url);
    if (target.protocol !== 'https:' && !(o.allowPrivateNetworks && target.protocol === 'http:'))
      return refused(`${target.protocol} URLs are not delivered to; use https`, started);
    const transport = target.protocol === 'https:' ? https : http;
    return new Promise<AttemptAnswer>((resolve) => {
      let answered: Omit<AttemptAnswer, 'response' | 'duration_ms'> | null = null;
      const chunks: Buffer[] = [];
      let kept = 0;
      let done = false;
      const finish = (outcome: Omit<AttemptAnswer, 'response' | 'duration_ms'>) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        request.destroy();
        const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES);
        // streaming decode drops a character cut in half at the 10 KB boundary
        const response = outcome.status === null ? null : new TextDecoder().decode(bytes, { stream: true });
        resolve({ ...outcome, response, duration_ms: Math.round(performance.now() - started) });
      };
      const request = transport.request(target, {
        method: 'POST',
        agent: agents[target.protocol as 'http:' | 'https:'],
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(o.lookup ? { lookup: o.lookup } : {}),
      });
      // past the deadline: a receiver that answered keeps its status and what it sent so far
      const timer = setTimeout(
        () =>
          finish(
            answered ?? {
              status: null,
              failure: { kind: 'timeout', message: `no answer within ${timeoutMs} ms` },
              retry_after: null,
              location: null,
            },
          ),
        timeoutMs,
      );
      request.on('response', (res) => {
        const header = (name: string) => {
          const v = res.headers[name];
          return (Array.isArray(v) ? v[0] : v) ?? null;
        };
        answered = {
          status: res.statusCode ?? null,
          failure: null,
          retry_after: header('retry-after'),
          location: header('location'),
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          kept += chunk.length;
          if (kept >= RESPONSE_EXCERPT_BYTES) finish(answered!);
        });
        res.on('end', () => finish(answered!));
        res.on('error', () => finish(answered!));
      });
      request.on('error', (err: Error & { code?: string }) => {
        if (answered) return finish(answered);
        finish({
          status: null,
          failure: refusedByGuard(err)
            ? {
                kind: 'refused',
                message: `address not allowed (private, loopback, link-local or metadata; see WEBHOOK_ALLOW_PRIVATE_NETWORKS): ${err.message}`,
              }
            : { kind: 'network', message: describe(err) },
          retry_after: null,
          location: null,
        });
      });
      request.end(body);
    });
  }

  return {
    post,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
