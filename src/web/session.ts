/**
 * Seller sessions on the service's own pages (docs/decisions/091-seller-accounts.md). Others import:
 * - `registerWebSessions(app, options)`: buildHttpServer calls it once, on the root instance, so
 *   cookies, form bodies, CSRF and sessions serve every route (the OAuth and connections pages too);
 * - `signedInUser(req)`: `{ userId }` of a fully signed-in visitor (TOTP owed counts as not), or null;
 * - `requireSignedIn`: a preHandler that redirects anyone else to `/sign-in?return_to=<this path>`;
 * - `csrfToken(reply)` for a form's hidden `_csrf` field (page.ts `csrfField`), and `verifyCsrf`, the
 *   preHandler every POST takes (403 without a valid token);
 * - `signIn(req, reply, userId)`: starts a new session on this reply (the old one, if any, ends);
 *   `signOut(req, reply)`;
 * - `safeReturnPath(value)`: a same-origin relative path to go back to, or `/account`;
 * - `endSessionsOf(db, userId)`: signs a user out everywhere.
 * Rate limits for sign-in, sign-up, reset and the OAuth token endpoint: `rateLimited(name)` and
 * `RATE_LIMITS` in rate-limit.ts; account deletion hooks: `onAccountDeletion` in src/identity/deletion.ts.
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '../domain/shared/canonical.js';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RawServerDefault } from 'fastify';
import type { Knex } from 'knex';
import { IDENTITY_SCHEMA } from '../identity/schema.js';
import { registerRateLimitStore, type RateLimitStoreOptions } from './rate-limit.js';

/** A session ends this long after it began, whatever happens in between. */
export const SESSION_LIFETIME_MS = 14 * 24 * 60 * 60 * 1000;
/** Between a right password and its TOTP code. */
export const SECOND_FACTOR_WINDOW_MS = 5 * 60 * 1000;

export interface WebSessionOptions {
  db: Knex;
  /** e.g. https://mcp.example.com: when https, cookies are Secure and `__Host-` prefixed */
  publicBaseUrl?: string | undefined;
  now?: () => Date;
  /** where the sign-in, sign-up, reset and token endpoints count attempts (rate-limit.ts) */
  rateLimit?: RateLimitStoreOptions | undefined;
}

interface Sessions {
  db: Knex;
  cookie: string;
  secure: boolean;
  now: () => Date;
}

declare module 'fastify' {
  interface FastifyInstance {
    webSessions: Sessions;
  }
}

export type SessionStage = 'signed_in' | 'second_factor';

const table = (db: Knex) => db.withSchema(IDENTITY_SCHEMA).table('web_sessions');

/** The service's fastify instance, whatever its logger's type. */
export type WebApp<L extends FastifyBaseLogger = FastifyBaseLogger> = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  L
>;

export function registerWebSessions<L extends FastifyBaseLogger>(app: WebApp<L>, options: WebSessionOptions): void {
  const secure = options.publicBaseUrl?.startsWith('https:') ?? false;
  // `__Host-`: the browser keeps such a cookie only if Secure, Path=/ and without Domain, so
  // no sibling subdomain can plant or shadow it
  const prefix = secure ? '__Host-' : '';
  app.decorate('webSessions', {
    db: options.db,
    cookie: `${prefix}session`,
    secure,
    now: options.now ?? (() => new Date()),
  });
  app.register(fastifyCookie);
  app.register(fastifyFormbody);
  // the double-submit secret in a cookie of its own; tokens go in forms as `_csrf`
  app.register(fastifyCsrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: `${prefix}csrf`,
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', secure },
  });
  registerRateLimitStore(app, options.rateLimit ?? { prefix: 'local' });
}

const cookieOptions = (s: Sessions) => ({ path: '/', httpOnly: true, sameSite: 'lax' as const, secure: s.secure });

const known = new WeakMap<FastifyRequest, Promise<{ userId: string; stage: SessionStage } | null>>();

/** The session of this request's cookie, if it is live; looked up once per request. */
export function currentSession(req: FastifyRequest): Promise<{ userId: string; stage: SessionStage } | null> {
  let found = known.get(req);
  if (!found) {
    const s = req.server.webSessions;
    const id = req.cookies[s.cookie];
    found = id
      ? table(s.db)
          .select('user_id', 'stage')
          .where({ id_hash: sha256(id) })
          .where('expires_at', '>', s.now())
          .first()
          .then((row?: { user_id: string; stage: SessionStage }) =>
            row ? { userId: row.user_id, stage: row.stage } : null,
          )
      : Promise.resolve(null);
    known.set(req, found);
  }
  return found;
}

export async function signedInUser(req: FastifyRequest): Promise<{ userId: string } | null> {
  const session = await currentSession(req);
  return session?.stage === 'signed_in' ? { userId: session.userId } : null;
}

/** Only a path on this origin: `/x?y`, never `//host`, `/\host` or a scheme. */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || !/^\/(?![/\\])[\x21-\x7e]*$/.test(value)) return '/account';
  return value;
}

/** A preHandler; plain async functions, so that they fit routes of an instance with any logger. */
export type WebHook = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export const requireSignedIn: WebHook = async (req, reply) => {
  if (await signedInUser(req)) return;
  return reply.redirect(`/sign-in?return_to=${encodeURIComponent(safeReturnPath(req.url))}`, 303);
};

/** A CSRF token for a form this reply renders (sets the secret cookie when the visitor has none). */
export const csrfToken = (reply: FastifyReply): string => reply.generateCsrf();

export const verifyCsrf: WebHook = async (req, reply) => {
  // the plugin's check is synchronous: it either passes on or has already answered 403
  let valid = false;
  req.server.csrfProtection(req, reply, () => (valid = true));
  if (!valid) return reply;
};

/**
 * Starts a session for `userId` on this reply, ending the request's own session first (a new id on
 * every sign-in: no session fixation). `stage` 'second_factor' is for the TOTP step only.
 */
export async function signIn(
  req: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  stage: SessionStage = 'signed_in',
): Promise<void> {
  const s = req.server.webSessions;
  await endSession(req);
  const id = randomBytes(32).toString('base64url');
  const lifetime = stage === 'signed_in' ? SESSION_LIFETIME_MS : SECOND_FACTOR_WINDOW_MS;
  const expires = new Date(s.now().getTime() + lifetime);
  await table(s.db).insert({ id_hash: sha256(id), user_id: userId, stage, expires_at: expires });
  reply.setCookie(s.cookie, id, { ...cookieOptions(s), expires });
  known.set(req, Promise.resolve({ userId, stage }));
}

async function endSession(req: FastifyRequest): Promise<void> {
  const s = req.server.webSessions;
  const id = req.cookies[s.cookie];
  if (id)
    await table(s.db)
      .where({ id_hash: sha256(id) })
      .delete();
  known.set(req, Promise.resolve(null));
}

export async function signOut(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  await endSession(req);
  reply.clearCookie(req.server.webSessions.cookie, cookieOptions(req.server.webSessions));
}

/** Ends every session of a user (password changed, account deleted). */
export async function endSessionsOf(db: Knex, userId: string, except?: FastifyRequest): Promise<void> {
  const keep = except && except.cookies[except.server.webSessions.cookie];
  await table(db)
    .where({ user_id: userId })
    .modify((q) => (keep ? q.whereNot({ id_hash: sha256(keep) }) : q))
    .delete();
}
