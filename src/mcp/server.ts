import { requestBaseUrl } from '../web/base-url.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { DispatchNotifier } from '../commands/mutation/dispatch-notifier.js';
import type { Knex } from '../infra/db.js';
import type { EventStore } from '../eventstore/port.js';
import type { Logger } from '../infra/logger.js';
import {
  AUTHENTICATION_DOC,
  type Authenticate,
  bearerToken,
  PROTECTED_RESOURCE_PATH,
  protectedResourceMetadata,
  type Principal,
  refuseScope,
  refuseToken,
  scopesLacking,
} from './auth.js';
import type { OAuthServer } from '../oauth/provider.js';
import { registerOAuthRoutes } from '../oauth/routes.js';
import { knownScopes, SCOPES } from '../domain/user/scopes.js';
import { registerExportRoutes } from './exports.js';
import { registerReportArtifactRoute } from './report-artifacts.js';
import { registerIngestionRoute } from './ingestion.js';
import { browserGuards } from './browser-guards.js';
import { SERVICE_CATALOG } from './catalog.js';
import { cutDeeperThan, MAX_ARGUMENT_DEPTH } from './argument-bounds.js';
import { callAuth, MAX_MCP_BODY_BYTES, mcpHandler } from './mcp-handler.js';
import type { Catalog } from './mcp-server.js';
import type { Endpoint, MarketplaceAccess, ToolContext, ToolServices } from './tool.js';
import { demoCaller } from './throttle.js';
import type { Sandbox } from '../runtime/sandbox/index.js';
import type { BacktestStarter } from './tool.js';
import type { LiveReadAccess } from '../catalog/live-read/execute.js';
import type { DryRunGate } from './dry-runs.js';
import { registerWebSessions } from '../web/session.js';
import { registerConnectionPages, type ConnectionPagesDeps } from '../web/connections/pages.js';
import { registerAccountPages, type AccountPagesDeps } from '../web/accounts.js';
import { registerConsolePages } from '../web/console/routes.js';
import { registerSettingsPages } from '../web/console/settings/routes.js';
import type { SettingsDeps } from '../web/console/settings/context.js';
import type { RateLimitStoreOptions } from '../web/rate-limit.js';

export interface HttpServerDeps {
  db: Knex;
  logger: Logger;
  authenticate: Authenticate;
  /** the user whose accounts /demo/mcp serves */
  demoUserId: string;
  /** the demo console pages per visitor per minute (DEMO_PAGES_PER_MINUTE) */
  demoPagesPerMinute?: number;
  /** e.g. https://mcp.example.com; when absent, each request's own origin is used */
  publicBaseUrl?: string;
  /** fastify's trustProxy (TRUST_PROXY): whose X-Forwarded-For names the client; absent, none */
  trustProxy?: false | number | string[];
  /** hostnames the MCP endpoints answer in Host besides localhost and publicBaseUrl's (MCP_ALLOWED_HOSTS) */
  allowedHosts?: readonly string[];
  /** browser origins' hostnames the MCP endpoints answer besides localhost (MCP_ALLOWED_ORIGINS) */
  allowedOrigins?: readonly string[];
  /** the OAuth 2.1 authorization server of /mcp; its base URL is then the service's (publicBaseUrl ignored) */
  oauth?: OAuthServer;
  /** the clock tools read "today" from; the wall clock unless a test sets one */
  now?: () => Date;
  /** the event store write tools append to */
  store?: EventStore;
  /** where write tools hand the receipts they queued to the dispatch workers */
  dispatch?: DispatchNotifier;
  /** the marketplace tools that read it live call */
  marketplace?: MarketplaceAccess;
  /** where run_automation runs automations */
  sandbox?: Sandbox;
  /** run_automation's rate limit and busy state */
  dryRuns?: DryRunGate;
  /** where backtest_automation hands the backtests it starts (the backtest workers' queue) */
  backtests?: BacktestStarter;
  /** what read_amazon_operation reads the marketplace with */
  liveReads?: LiveReadAccess;
  /** what the MCP endpoints serve: the service's catalog unless a test serves the conformance suite's fixtures */
  catalog?: Catalog;
  /** the secret accounts' event signing secrets derive from; with `store`, serves POST /ingest/:account_id */
  ingestionSecret?: string;
  /** with `store`, serves the seller account pages (sign-up, sign-in, /account); and where their attempts are counted */
  accounts?: Pick<AccountPagesDeps, 'mail' | 'keyring'> & { rateLimit?: RateLimitStoreOptions };
  /** with `store`, serves the marketplace connections pages (/connections) */
  connections?: ConnectionPagesDeps;
  /** with `store`, serves the console's Settings (/console/settings): webhooks' key and queue */
  settings?: Omit<SettingsDeps, 'db' | 'store' | 'now'>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** An incoming x-request-id is honoured when it looks like an id, so logs join across services. */
function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** fastify's trustProxy; a hop count as the function fastify makes of one (its types take no number). */
const trustedProxies = (trust: false | number | string[]) =>
  typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;

export function buildHttpServer(deps: HttpServerDeps) {
  // fastify's logs label the request id reqId; tool-call logs go through req.log and carry it too
  // Bodies with `__proto__` or `constructor` keys are parsed as plain JSON (own properties, no
  // prototype is touched) rather than refused with a bare 400: tool arguments refuse those keys
  // themselves, as `invalid` naming where (argument-bounds.ts), and the SDK drops them elsewhere.
  const app = Fastify({
    loggerInstance: deps.logger,
    genReqId: requestId,
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    trustProxy: trustedProxies(deps.trustProxy ?? false),
  });
  const baseUrl = requestBaseUrl(deps.oauth?.baseUrl ?? deps.publicBaseUrl);

  // set on the raw response so that hijacked MCP replies carry it too
  app.addHook('onRequest', async (req, reply) => {
    reply.raw.setHeader('x-request-id', req.id);
  });

  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode ?? 500;
    if (status < 500) return reply.code(status).send({ error: 'invalid_request', error_description: err.message });
    req.log.error({ err }, 'request failed');
    return reply
      .code(503)
      .send({ error: 'unavailable', error_description: 'the service could not answer; retry later' });
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  // cookies, form bodies, CSRF and seller sessions for every page the service serves
  registerWebSessions(app, {
    db: deps.db,
    publicBaseUrl: deps.publicBaseUrl,
    rateLimit: deps.accounts?.rateLimit,
    ...(deps.now ? { now: deps.now } : {}),
  });
  if (deps.store && deps.accounts)
    registerAccountPages(app, {
      db: deps.db,
      store: deps.store,
      mail: deps.accounts.mail,
      keyring: deps.accounts.keyring,
      publicBaseUrl: deps.publicBaseUrl,
      ...(deps.now ? { now: deps.now } : {}),
    });

  // what a tool call may use besides its caller: MCP calls and the console's pages get the same
  const services: ToolServices = {
    ...(deps.store ? { store: deps.store } : {}),
    ...(deps.dispatch ? { dispatch: deps.dispatch } : {}),
    ...(deps.marketplace ? { marketplace: deps.marketplace } : {}),
    ...(deps.sandbox ? { sandbox: deps.sandbox } : {}),
    ...(deps.dryRuns ? { dryRuns: deps.dryRuns } : {}),
    ...(deps.backtests ? { backtests: deps.backtests } : {}),
    ...(deps.liveReads ? { liveReads: deps.liveReads } : {}),
  };
  registerConsolePages(app, {
    db: deps.db,
    demoUserId: deps.demoUserId,
    services,
    ...(deps.demoPagesPerMinute ? { demoPagesPerMinute: deps.demoPagesPerMinute } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  if (deps.store && deps.settings)
    registerSettingsPages(app, {
      ...deps.settings,
      db: deps.db,
      store: deps.store,
      ...(deps.now ? { now: deps.now } : {}),
    });

  const metadata = async (req: FastifyRequest) => protectedResourceMetadata(baseUrl(req), deps.oauth?.issuer);
  app.get(PROTECTED_RESOURCE_PATH, metadata);
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, metadata);
  if (deps.oauth) registerOAuthRoutes(app, { oauth: deps.oauth, db: deps.db });
  registerExportRoutes(app, { db: deps.db, authenticate: deps.authenticate, baseUrl });
  registerReportArtifactRoute(app, {
    db: deps.db,
    authenticate: deps.authenticate,
    baseUrl,
    now: deps.now ?? (() => new Date()),
  });
  if (deps.store && deps.ingestionSecret)
    registerIngestionRoute(app, { db: deps.db, store: deps.store, secret: deps.ingestionSecret });
  if (deps.store && deps.connections)
    registerConnectionPages(app, {
      ...deps.connections,
      db: deps.db,
      ctx: { store: deps.store, metadata: { actor: { kind: 'user', id: 'connections-page' } } },
    });
  app.get('/docs/authentication', async (_req, reply) =>
    reply.type('text/markdown; charset=utf-8').send(AUTHENTICATION_DOC),
  );

  // what the SDK refused or failed to answer; a tool's own failures are logged by the tool call
  const mcp = mcpHandler(deps.catalog ?? SERVICE_CATALOG, (err) => deps.logger.warn({ err }, 'mcp request not served'));
  const guards = browserGuards(deps);

  function serveMcp(
    req: FastifyRequest,
    reply: FastifyReply,
    endpoint: Endpoint,
    userId: string,
    principal?: Principal,
  ) {
    const call: ToolContext = {
      db: deps.db,
      userId,
      endpoint,
      ...(endpoint === 'demo' ? { caller: demoCaller(req.ip) } : {}),
      ...(principal ? { principal } : {}),
      logger: req.log,
      requestId: req.id,
      now: deps.now ?? (() => new Date()),
      ...services,
    };
    reply.hijack();
    // a tool's arguments sit a few levels into the message; deeper than its bound, it refuses them
    const body = cutDeeperThan(req.body, MAX_ARGUMENT_DEPTH + 8);
    return mcp(Object.assign(req.raw, { auth: callAuth(call) }), reply.raw, body);
  }

  const refuse = (req: FastifyRequest, reply: FastifyReply, tokenGiven: boolean) =>
    // the scopes a client should ask for: every one, so that its token can write too
    refuseToken(reply, baseUrl(req), { tokenGiven, needed: 'a bearer token is required', scope: SCOPES.join(' ') });

  /** Step-up: the challenge names every scope the call needs beside the token's own. */
  const insufficientScope = (req: FastifyRequest, reply: FastifyReply, principal: Principal, lacking: string[]) =>
    refuseScope(reply, baseUrl(req), { lacking, scope: knownScopes([...principal.scopes, ...lacking]).join(' ') });

  const methods = ['POST', 'GET', 'DELETE'] as const;
  app.route({
    method: [...methods],
    url: '/mcp',
    bodyLimit: MAX_MCP_BODY_BYTES,
    onRequest: guards,
    handler: async (req, reply) => {
      const token = bearerToken(req.headers.authorization);
      const principal = token ? await deps.authenticate(token) : null;
      if (!principal) return refuse(req, reply, token !== undefined);
      const lacking = scopesLacking(req.body, principal.scopes);
      if (lacking.length) return insufficientScope(req, reply, principal, lacking);
      return serveMcp(req, reply, 'mcp', principal.userId, principal);
    },
  });
  app.route({
    method: [...methods],
    url: '/demo/mcp',
    bodyLimit: MAX_MCP_BODY_BYTES,
    onRequest: guards,
    handler: (req, reply) => serveMcp(req, reply, 'demo', deps.demoUserId),
  });

  return app;
}
