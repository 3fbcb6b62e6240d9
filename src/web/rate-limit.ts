import fastifyRateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { normalizeEmail } from '../identity/credentials.js';
import { demoCaller } from '../mcp/throttle.js';
import { html, page } from './page.js';
import type { WebApp, WebHook } from './session.js';

// Rate limits of the sign-in, sign-up, reset and token endpoints (docs/decisions/091-seller-accounts.md)
// and of the demo seller's console pages, counted in Redis so that every api process shares them,
// per client (its IP; an IPv6 address by its /64, as the demo's MCP throttle counts visitors) and,
// where a form names one, per email address. Past a per-IP limit the wait doubles with each further attempt
// (backoff); a per-email limit keeps a fixed window, so that someone guessing at a victim's address
// cannot lock its owner out for longer than that window.
// The OAuth token endpoint takes `rateLimited('token')`.

export const RATE_LIMITS = {
  signIn: { perIp: { max: 20, timeWindow: 60_000 }, perEmail: { max: 10, timeWindow: 15 * 60_000 } },
  signUp: { perIp: { max: 10, timeWindow: 60 * 60_000 } },
  reset: { perIp: { max: 10, timeWindow: 15 * 60_000 }, perEmail: { max: 3, timeWindow: 60 * 60_000 } },
  token: { perIp: { max: 60, timeWindow: 60_000 } },
  // `/` and `/activity` answer anyone: each page is a few aggregate reads
  demoPages: { perIp: { max: 60, timeWindow: 60_000 } },
} as const satisfies Record<string, { perIp: Limit; perEmail?: Limit }>;

interface Limit {
  max: number;
  timeWindow: number;
}

export type RateLimitName = keyof typeof RATE_LIMITS;

export interface RateLimitStoreOptions {
  /** absent: counted in this process only (tests of other parts) */
  redis?: Redis | undefined;
  /** the deployment's Redis key prefix */
  prefix: string;
}

export function registerRateLimitStore<L extends FastifyBaseLogger>(app: WebApp<L>, store: RateLimitStoreOptions) {
  app.register(fastifyRateLimit, {
    global: false,
    exponentialBackoff: true,
    // Redis away: sign-in goes on unlimited rather than nobody signing in
    skipOnError: true,
    ...(store.redis ? { redis: store.redis, nameSpace: `${store.prefix}:rate-limit:` } : {}),
  });
}

type Check = ReturnType<WebApp['createRateLimit']>;
const checks = new WeakMap<object, Map<string, Check>>();

function check(
  req: FastifyRequest,
  name: string,
  limit: Limit,
  backoff: boolean,
  key: (req: FastifyRequest) => string,
): Check {
  let mine = checks.get(req.server);
  if (!mine) checks.set(req.server, (mine = new Map()));
  let found = mine.get(name);
  if (!found) {
    // the plugin takes every option per limiter (its types list fewer)
    const options: RateLimitOptions = {
      ...limit,
      exponentialBackoff: backoff,
      keyGenerator: (r) => `${name}:${key(r)}`,
    };
    found = req.server.createRateLimit(options);
    mine.set(name, found);
  }
  return found;
}

const emailOf = (req: FastifyRequest): string =>
  normalizeEmail((req.body as Record<string, unknown> | undefined)?.email) ?? '-';

/**
 * A preHandler (the body must be parsed, for the email) that answers 429 with Retry-After once the
 * client's IP, or the form's email, has used up its attempts.
 */
export function rateLimited(name: RateLimitName): WebHook {
  const limits: { perIp: Limit; perEmail?: Limit } = RATE_LIMITS[name];
  return async (req, reply) => {
    const results = [await check(req, `${name}-ip`, limits.perIp, true, (r) => demoCaller(r.ip))(req)];
    // a form without an email (the TOTP step) is counted per IP only
    if (limits.perEmail && emailOf(req) !== '-')
      results.push(await check(req, `${name}-email`, limits.perEmail, false, emailOf)(req));
    const wait = Math.max(0, ...results.map((r) => (r.isAllowed ? 0 : r.isExceeded ? r.ttlInSeconds : 0)));
    if (wait === 0) return;
    reply.code(429).header('retry-after', String(wait));
    if (req.headers.accept?.includes('text/html'))
      return reply.type('text/html; charset=utf-8').send(tooManyPage(wait));
    return reply.send({ error: 'rate_limited', error_description: `too many attempts; retry in ${wait} s` });
  };
}

const tooManyPage = (seconds: number) =>
  page({ title: 'Too many requests' }, html`<p>Too many requests from here. Try again in ${seconds} seconds.</p>`);
