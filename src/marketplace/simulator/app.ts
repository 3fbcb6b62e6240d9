import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registerProfiles } from './ads/profiles.js';
import { registerSponsoredAds } from './ads/sponsored-ads.js';
import { catalogFor, type Catalog, type Scale } from './catalog.js';
import { registerEvents, type EventsOptions } from './events/index.js';
import { createFaults, registerFaults, type Faults } from './faults.js';
import { createConsents, registerConsentPages, type Consents } from './consent.js';
import { registerLwa } from './lwa.js';
import { registerReports } from './reports/routes.js';
import { createRequestLog, registerRequestLog, type RequestLog } from './request-log.js';
import { createFictionalSeller, type FictionalSeller } from './seller.js';
import { createSellingData, registerSellingData, type SellingData } from './selling/data.js';
import { registerSellers } from './selling/sellers.js';
import { createTokenStore, type LwaCredential } from './tokens.js';
import { createFictionalVendor, registerVendor, type FictionalVendor } from './vendor.js';

// The marketplace simulator: one fastify app speaking the LWA, selling API and ads API wire
// shapes for a deterministic fictional seller, with fault injection and a request log.

export interface SimulatorOptions {
  /** Same seed, same seller (ids, names, profiles). Default 42. */
  seed?: number;
  /** Catalog and order volume; defaults to DEMO_SCALE (BENCH_SCALE for benchmarks). */
  scale?: Partial<Scale>;
  /** LWA applications allowed to exchange tokens. Default: simulator-client / simulator-secret. */
  lwaClients?: readonly LwaCredential[];
  accessTokenTtlSeconds?: number;
  /** The simulator's clock: access tokens expire by it, and orders exist once placed before it. */
  now?: () => number;
  requestLogLimit?: number;
  logger?: FastifyBaseLogger;
  /** Delay before every API answer (control routes excluded); also set by PUT /_sim/latency { ms, when: before|after }. */
  latencyMs?: number;
  /** Notifications and Marketing Stream: the live market's pace (off unless set), confirmation delay, delivery retries. */
  events?: EventsOptions;
  /** The catalog and order volume of each seller a consent page makes. Default CONSENT_SCALE. */
  consentScale?: Partial<Scale>;
}

/** A consented seller's data: a handful of listings and a year of a few hundred order lines,
 * quick to sync. */
export const CONSENT_SCALE: Scale = { listings: 8, orderLines: 200 };

/** The URLs the clients take from configuration (SELLING_API_URL, ADS_API_URL, LWA_TOKEN_URL). */
export interface MarketplaceEndpoints {
  sellingApiUrl: string;
  adsApiUrl: string;
  lwaTokenUrl: string;
}

/** Where a simulator listening at `baseUrl` serves each API. */
export const endpointsAt = (baseUrl: string): MarketplaceEndpoints => ({
  sellingApiUrl: baseUrl,
  adsApiUrl: baseUrl,
  lwaTokenUrl: `${baseUrl}/auth/o2/token`,
});

export interface Simulator {
  app: FastifyInstance;
  seller: FictionalSeller;
  /** The seller's listings and products, computed lazily from the seed and scale. */
  catalog: Catalog;
  /** Listings (with accepted changes and the submission log), orders, inventory. */
  selling: SellingData;
  /** The vendor account (refresh tokens Atzr|demo-vendor and Atzr|demo-vendor-advertiser). */
  vendor: FictionalVendor;
  faults: Faults;
  requests: RequestLog;
  /** The sellers who authorized an application on the consent pages, each a simulator of its own. */
  consents: Consents;
  /** Starts serving; resolves to the base URL, e.g. http://127.0.0.1:39017. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** Endpoints of the listening simulator. */
  endpoints(): MarketplaceEndpoints;
  close(): Promise<void>;
}

/**
 * Latency of every API answer (control routes excluded): `before` the request is handled (a
 * client that goes away meanwhile changes nothing), or `after` it (the change is made, the
 * answer is late: a client that goes away meanwhile never learns it).
 */
function registerLatency(app: FastifyInstance, initialMs: number): void {
  let latency = { ms: initialMs, when: 'before' as 'before' | 'after' };
  const wait = (request: { url: string }, when: 'before' | 'after') =>
    latency.ms > 0 && latency.when === when && !request.url.startsWith('/_sim/')
      ? new Promise((resolve) => setTimeout(resolve, latency.ms))
      : undefined;
  app.addHook('onRequest', async (request) => {
    await wait(request, 'before');
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    await wait(request, 'after');
    return payload;
  });
  app.put('/_sim/latency', async (request, reply) => {
    const parsed = z
      .strictObject({ ms: z.number().int().min(0).max(60_000), when: z.enum(['before', 'after']).default('before') })
      .safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: 'invalid_latency', issues: parsed.error.issues });
    latency = parsed.data;
    return latency;
  });
}

export const DEFAULT_LWA_CLIENT: LwaCredential = {
  clientId: 'simulator-client',
  clientSecret: 'simulator-secret',
  applicationId: 'amzn1.sp.solution.simulator-application',
};

/** The LWA application the service's configuration names (LWA_CLIENT_ID, LWA_CLIENT_SECRET,
 * SELLING_APPLICATION_ID), as the simulator it runs registers it. */
export const configuredLwaClient = (config: {
  LWA_CLIENT_ID: string;
  LWA_CLIENT_SECRET: string;
  SELLING_APPLICATION_ID?: string | undefined;
}): LwaCredential => ({
  clientId: config.LWA_CLIENT_ID,
  clientSecret: config.LWA_CLIENT_SECRET,
  applicationId: config.SELLING_APPLICATION_ID ?? DEFAULT_LWA_CLIENT.applicationId!,
});

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const seller = createFictionalSeller(options.seed ?? 42);
  const catalog = catalogFor(options.seed ?? 42, options.scale);
  const selling = createSellingData(catalog, options.now ?? Date.now);
  const vendor = createFictionalVendor(options.seed ?? 42, options.scale);
  const tokens = createTokenStore(options.accessTokenTtlSeconds ?? 3600, options.now ?? Date.now);
  const faults = createFaults();
  const requests = createRequestLog(options.requestLogLimit ?? 10_000);
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: () => randomUUID(),
    // Requests held by a `timeout` fault must not keep close() waiting.
    forceCloseConnections: true,
  });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-amzn-RequestId', request.id);
  });
  // Order matters: the log records a request before a fault can answer it.
  registerRequestLog(app, requests);
  registerLatency(app, options.latencyMs ?? 0);
  registerFaults(app, faults, requests);
  const lwaClients = options.lwaClients ?? [DEFAULT_LWA_CLIENT];
  const consents = createConsents({
    seed: options.seed ?? 42,
    now: options.now ?? Date.now,
    simulatorFor: (seed) =>
      createSimulator({
        seed,
        scale: options.consentScale ?? CONSENT_SCALE,
        lwaClients,
        ...(options.accessTokenTtlSeconds !== undefined
          ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds }
          : {}),
        ...(options.now ? { now: options.now } : {}),
        ...(options.events ? { events: options.events } : {}),
      }),
  });
  registerLwa(app, tokens, lwaClients, consents);
  registerConsentPages(app, consents, lwaClients);
  registerSellers(app, seller, tokens);
  registerSellingData(app, seller, tokens, selling, options.now ?? Date.now);
  registerProfiles(app, seller, tokens);
  const ads = registerSponsoredAds(app, { seller, catalog, tokens, now: options.now ?? Date.now });
  const events = registerEvents(
    app,
    { seed: options.seed ?? 42, seller, selling, ads, tokens, now: options.now ?? Date.now },
    options.events,
  );
  registerVendor(app, vendor, tokens);
  registerReports(app, {
    seed: options.seed ?? 42,
    catalog,
    vendor,
    merchantId: seller.merchantId,
    selling,
    tokens,
    now: options.now ?? Date.now,
    onFinished: (job) => events.jobFinished(job),
  });

  let baseUrl: string | undefined;
  return {
    app,
    seller,
    catalog,
    selling,
    vendor,
    faults,
    requests,
    consents,
    async listen({ port = 0, host = '127.0.0.1' } = {}) {
      await app.listen({ port, host });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('simulator: no TCP address');
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      baseUrl = `http://${shownHost}:${address.port}`;
      return baseUrl;
    },
    endpoints() {
      if (!baseUrl) throw new Error('simulator: call listen() first');
      return endpointsAt(baseUrl);
    },
    async close() {
      events.close();
      await consents.close();
      await app.close();
    },
  };
}
