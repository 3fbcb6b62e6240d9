import { backtestQueue, backtestWorker, enqueueBacktest } from './runtime/backtest/jobs.js';
import { createLwaClient } from './marketplace/clients/index.js';
import {
  configuredLwaClient,
  createSimulator,
  eventsOptionsFrom,
  endpointsAt,
  type MarketplaceEndpoints,
  type Simulator,
} from './marketplace/simulator/index.js';
import { DEMO_USER_ID, stableId } from './domain/shared/ids.js';
import { createEventStore, type EventStore } from './eventstore/index.js';
import type { Config } from './infra/config.js';
import { createDb, type Knex } from './infra/db.js';
import type { Logger } from './infra/logger.js';
import { migrate } from './infra/migrate.js';
import { ensureCatalog } from './catalog/acquire.js';
import { migrateQueryViews, migrationSteps } from './migrations.js';
import { checkRedis, ensureDatabase, UnreachableError } from './infra/reachability.js';
import { createProducerRedis, createRedis } from './infra/redis.js';
import { STORE_LIMITS } from './domain/automation-store/limits.js';
import { createSandbox } from './runtime/sandbox/index.js';
import { tokenAuthenticator } from './mcp/auth.js';
import { startOAuth } from './oauth/index.js';
import { buildHttpServer } from './mcp/server.js';
import { cursorKey } from './catalog/live-read/cursor.js';
import { eventRetentionQueue, eventRetentionWorker } from './workers/events/retention-queue.js';
import { keepSchedules } from './workers/schedules.js';
import { startTableMaintenance } from './projections/maintenance.js';
import { Projector } from './projections/projector.js';
import { projections } from './projections/registry.js';
import { connectionsQueue, connectionsWorker, scheduleConnectionSync } from './workers/connections-queue.js';
import { scheduleSyncs, syncQueue, syncWorker } from './workers/sync/queue.js';
import { dispatchClients } from './workers/dispatch/clients.js';
import { dispatchQueue, enqueueDispatch, startDispatch } from './workers/dispatch/queue.js';
import { startReportWorker } from './workers/reports/worker.js';
import { syncJobs } from './workers/sync/registry.js';
import { freePort } from './infra/free-port.js';
import { credentialSets, credentialsLookup, SELLER_CREDENTIALS } from './workers/credentials.js';
import { isVaultReference, keyringFrom } from './secrets/vault.js';
import { connectionPagesDeps } from './web/connections/pages.js';
import { startStreams } from './workers/streams/queue.js';
import { subscriber } from './workers/streams/subscriber.js';
import { deliverySecret, ingestionPath } from './domain/event/delivery.js';
import { startWebhookDelivery, webhookNotifier, webhookQueue, type RunningWebhooks } from './workers/webhook/queue.js';
import { startAlertSweeps } from './workers/alerts/sweep.js';
import { startLiveReactor } from './runtime/live/reactor.js';
import { waitForDemo, type DemoAccount } from './demo-readiness.js';
import { createMailer } from './infra/mail.js';

export const ROLES = ['api', 'projector', 'worker', 'simulator'] as const;
export type Role = (typeof ROLES)[number];

/** Retryable rejections (429, 5xx) are sent again after 1 s, 2 s, 4 s ... at most a minute. */
const DISPATCH_BACKOFF = { baseMs: 1000, maxMs: 60_000 };
/** Up to this many requests of different targets share one Sponsored Products call. */
const DISPATCH_BATCH = 10;
/** An uncertain receipt's effect is looked for at once, then every minute until its 10 minutes are up. */
const RECONCILE_EVERY_MS = 60_000;

/**
 * The demo endpoint's one account (spec 1.4): the configured seller (the simulator's by default).
 * The vendor credential set is for /mcp users (`accounts connect --credentials vendor`).
 */
export const DEMO_ACCOUNT_ID = stableId('account', 'demo');

export interface RunningService {
  db: Knex;
  store: EventStore;
  /** base URL of the HTTP server when the api role runs */
  url: string | null;
  simulator: Simulator | null;
  projector: Projector | null;
  /** the webhook delivery queue and worker when the worker role runs (live runs post through it) */
  webhooks: RunningWebhooks | null;
  /** Stops accepting, lets in-flight work finish, then closes every connection. */
  stop(): Promise<void>;
}

async function checkEventStore(store: EventStore, url: string): Promise<void> {
  try {
    await store.headPosition();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw new UnreachableError(
      `EventStoreDB unreachable at ${url} (${(err as Error).message}); start it with: docker compose up -d eventstore, or unset EVENTSTORE_URL to keep events in PostgreSQL`,
    );
  }
}

export function marketplaceEndpoints(config: Config, simulator: Simulator | null): MarketplaceEndpoints {
  if (!config.useSimulator)
    return {
      sellingApiUrl: config.SELLING_API_URL!,
      adsApiUrl: config.ADS_API_URL!,
      lwaTokenUrl: config.LWA_TOKEN_URL!,
    };
  return simulator ? simulator.endpoints() : endpointsAt(`http://127.0.0.1:${config.SIMULATOR_PORT}`);
}

/**
 * Starts the given roles in this process. Every role shares PostgreSQL, Redis and the
 * event store, so roles can run in one process or spread over several.
 */
export async function startService(config: Config, roles: ReadonlySet<Role>, logger: Logger): Promise<RunningService> {
  await ensureDatabase(config.DATABASE_URL);
  // the worker's queues live there, and the api adds the dispatch jobs of what it admits
  if (roles.has('worker') || roles.has('api')) await checkRedis(config.REDIS_URL);
  const db = createDb(config.DATABASE_URL);
  const store = createEventStore(config);
  if (config.EVENTSTORE_URL) await checkEventStore(store, config.EVENTSTORE_URL);
  const stops: Array<() => Promise<unknown>> = [() => db.destroy(), () => store.close()];
  const stop = async () => {
    for (const s of stops.splice(0).reverse())
      await s().catch((err: unknown) => logger.error({ err }, 'error while stopping'));
  };
  try {
    await migrate(db, migrationSteps(projections, { eventStoreInPostgres: !config.EVENTSTORE_URL }));
    const catalogRevision = await ensureCatalog(db);
    if (catalogRevision)
      logger.info({ revision: catalogRevision }, 'operation catalog acquired from the fixture documents');

    let simulator: Simulator | null = null;
    if (roles.has('simulator') && config.useSimulator) {
      simulator = createSimulator({
        seed: config.SIMULATOR_SEED,
        lwaClients: [configuredLwaClient(config)],
        logger: logger.child({ role: 'simulator' }, { level: 'warn' }),
        // a live market (SIMULATOR_MARKET_PACE_MS): something happens to the demo seller every few seconds
        events: eventsOptionsFrom(config),
      });
      await simulator.listen({ port: config.SIMULATOR_PORT });
      stops.push(() => simulator!.close());
      logger.info(
        { endpoints: simulator.endpoints(), seller: simulator.seller.name },
        'marketplace simulator listening',
      );
    }

    let projector: Projector | null = null;
    let webhooks: RunningWebhooks | null = null;
    /** the demo accounts this process's worker connects: its api waits for them before listening */
    const demo: DemoAccount[] = [];
    if (roles.has('projector')) {
      // its own pool: 22 projections batching side by side never hold the connections MCP reads wait for
      const projectorDb = createDb(config.DATABASE_URL, { min: 0, max: config.PROJECTOR_CONNECTIONS });
      stops.push(() => projectorDb.destroy());
      projector = new Projector(projectorDb, store, projections, {
        pollMs: config.PROJECTOR_POLL_MS,
        logger: logger.child({ role: 'projector' }),
        // a view or rollup whose tables a rebuild just made is created now, not at the next start
        onRebuilt: () => migrate(projectorDb, [migrateQueryViews]),
      });
      projector.start();
      stops.push(() => projector!.stop());
      // two connections of its own: one for the VACUUM or ANALYZE running, one to cancel it on stop
      const maintenanceDb = createDb(config.DATABASE_URL, { min: 0, max: 2 });
      stops.push(() => maintenanceDb.destroy());
      const maintenance = startTableMaintenance(
        maintenanceDb,
        logger.child({ role: 'projector' }),
        config.TABLE_MAINTENANCE_EVERY_MS,
      );
      stops.push(() => maintenance.stop());
    }

    if (roles.has('worker')) {
      const endpoints = marketplaceEndpoints(config, simulator);
      const redis = createRedis(config.REDIS_URL);
      stops.push(() => redis.quit());
      const lwa = createLwaClient({
        tokenUrl: endpoints.lwaTokenUrl,
        clientId: config.LWA_CLIENT_ID,
        clientSecret: config.LWA_CLIENT_SECRET,
      });
      const queue = connectionsQueue(redis, config.REDIS_PREFIX);
      stops.push(() => queue.close());
      const sets = credentialSets(config);
      const credentials = credentialsLookup(config, db);
      const ctx = { store, metadata: { actor: { kind: 'worker' as const, id: 'sync' } } };
      const workerLogger = logger.child({ role: 'worker' });
      const dataQueue = syncQueue(redis, config.REDIS_PREFIX);
      stops.push(() => dataQueue.close());
      const dataWorker = syncWorker(
        {
          connection: redis,
          prefix: config.REDIS_PREFIX,
          ctx,
          db,
          lwa,
          endpoints,
          credentials,
          logger: workerLogger,
          now: () => new Date(),
          recovery: {
            retry: { firstMs: config.SYNC_RETRY_FIRST_MS, longestMs: config.SYNC_RETRY_LONGEST_MS },
            lockMs: config.SYNC_LOCK_MS,
            stalledCheckMs: config.SYNC_STALLED_CHECK_MS,
          },
        },
        syncJobs,
      );
      dataWorker.on('failed', (job, err) =>
        logger.warn({ job: job?.name, account_id: job?.data.account_id, err: err.message }, 'data sync failed'),
      );
      // A sync can read a year of history: on shutdown its job is released, not awaited. The
      // lock lapses and the job runs again later; it is idempotent, pages already recorded are
      // not recorded twice.
      stops.push(() => dataWorker.close(true));
      const worker = connectionsWorker({
        connection: redis,
        prefix: config.REDIS_PREFIX,
        db,
        ctx,
        lwa,
        endpoints,
        credentials,
        logger: workerLogger,
      });
      // a connected account, once the read model shows it, gets its data syncs scheduled
      // (idempotent on every connection sync); one whose connections are all inactive doesn't
      worker.on('completed', (job, { active }) => {
        if (active)
          void scheduleSyncs(dataQueue, syncJobs, job.data.account_id).catch((err: unknown) =>
            logger.error({ err }, 'scheduling data syncs failed'),
          );
      });
      worker.on('failed', (job, err) => logger.warn({ job: job?.id, err: err.message }, 'connection sync failed'));
      stops.push(() => worker.close());
      // BullMQ's own errors (a lost Redis connection, a next run it could not add on shutdown)
      // go to the log; without a listener BullMQ prints them to stderr
      const warn = (what: string) => (err: Error) => workerLogger.warn({ err: err.message }, `${what} error`);
      queue.on('error', warn('connection sync queue'));
      worker.on('error', warn('connection sync worker'));
      dataQueue.on('error', warn('data sync queue'));
      dataWorker.on('error', warn('data sync worker'));
      const dispatch = await startDispatch({
        connection: redis,
        prefix: config.REDIS_PREFIX,
        db,
        ctx: { store, metadata: { actor: { kind: 'worker' as const, id: 'dispatch' } } },
        ...dispatchClients({ db, lwa, endpoints, credentials, timeoutMs: config.DISPATCH_TIMEOUT_MS }),
        now: Date.now,
        backoff: DISPATCH_BACKOFF,
        batchSize: DISPATCH_BATCH,
        reconcileEveryMs: RECONCILE_EVERY_MS,
        sweepEveryMs: config.DISPATCH_SWEEP_MS,
        logger: workerLogger.child({ worker: 'dispatch' }),
      });
      stops.push(() => dispatch.close());
      const retentionQueue = eventRetentionQueue(redis, config.REDIS_PREFIX);
      stops.push(() => retentionQueue.close());
      const retention = eventRetentionWorker({
        connection: redis,
        prefix: config.REDIS_PREFIX,
        db,
        ctx,
        logger: workerLogger,
      });
      stops.push(() => retention.close());
      retentionQueue.on('error', warn('event retention queue'));
      retention.on('error', warn('event retention worker'));
      retention.on('failed', (_job, err) => workerLogger.warn({ err: err.message }, 'event retention failed'));
      // the job schedulers (retention, every connected account's connection and data syncs), at
      // start-up and again whenever Redis lost them
      const schedules = keepSchedules({
        db,
        queues: { connections: queue, data: dataQueue, retention: retentionQueue },
        jobs: syncJobs,
        // a vault reference's secret is looked up when a sync runs (a disconnected one is inactive)
        hasCredentials: (name) => sets.has(name) || isVaultReference(name),
        everyMs: config.SCHEDULES_SWEEP_MS,
        logger: workerLogger,
      });
      stops.push(() => schedules.close());
      webhooks = startWebhookDelivery({
        connection: redis,
        prefix: config.REDIS_PREFIX,
        db,
        store,
        signingKey: config.WEBHOOK_SIGNING_KEY,
        allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        sweepEveryMs: config.WEBHOOK_SWEEP_MS,
        logger: workerLogger.child({ worker: 'webhook' }),
      });
      stops.push(() => webhooks!.close());
      // live automation runs: each ingested marketplace event through the account's live automation,
      // in runner processes apart from the api's, so dry runs never queue behind live ones
      const sandbox = createSandbox({ storeLimits: STORE_LIMITS });
      stops.push(() => sandbox.close());
      const posts = webhooks;
      // one connection of its own: the partitions' leases are renewed on time however busy the pool is
      const leasesDb = createDb(config.DATABASE_URL, { min: 0, max: 1 });
      stops.push(() => leasesDb.destroy());
      const reactor = await startLiveReactor({
        db,
        leasesDb,
        store,
        sandbox,
        logger: workerLogger,
        notifier: { queued: (receiptIds) => enqueueDispatch(dispatch.queue, receiptIds) },
        enqueueWebhookPosts: (input) => posts.enqueueWebhookPosts(input),
        concurrency: config.LIVE_RUNS_CONCURRENCY,
        partitions: config.LIVE_PARTITIONS,
      });
      stops.push(() => reactor.close());
      // alerts: what needs the seller, to the destination they chose (docs/decisions/160-alerts.md)
      const alerts = startAlertSweeps({
        db,
        ctx: { store, metadata: { actor: { kind: 'worker' as const, id: 'alerts' } } },
        webhooks,
        mailer: createMailer({
          smtpUrl: config.SMTP_URL,
          from: config.MAIL_FROM,
          env: config.NODE_ENV,
          logger: workerLogger,
        }),
        now: () => new Date(),
        logger: workerLogger.child({ worker: 'alerts' }),
        partitions: () => reactor.held(),
      });
      stops.push(() => alerts.stop());
      // backtests: replayed in runner processes of their own, one at a time per worker process
      const backtestSandbox = createSandbox({ storeLimits: STORE_LIMITS, runners: 2 });
      stops.push(() => backtestSandbox.close());
      const backtests = backtestWorker({
        connection: redis,
        prefix: config.REDIS_PREFIX,
        db,
        ctx: { store, metadata: { actor: { kind: 'worker' as const, id: 'backtests' } } },
        sandbox: backtestSandbox,
        logger: workerLogger.child({ worker: 'backtests' }),
      });
      backtests.on('error', warn('backtest worker'));
      stops.push(() => backtests.close());
      // report requests: submitted, polled, transferred and completed from what the log holds
      const reports = startReportWorker(
        {
          ctx: { store, metadata: { actor: { kind: 'worker' as const, id: 'reports' } } },
          db,
          lwa,
          endpoints,
          credentials,
          logger: workerLogger.child({ worker: 'reports' }),
          now: () => new Date(),
        },
        { partitions: () => reactor.held() },
      );
      stops.push(() => reports.close());
      // the demo user's one account, the fictional seller (docs/decisions/085-demo-one-seller-and-tool-table.md)
      const seller = sets.get(SELLER_CREDENTIALS);
      if (seller) {
        await scheduleConnectionSync(queue, {
          user_id: DEMO_USER_ID,
          register_user_as: 'Demo',
          account_id: DEMO_ACCOUNT_ID,
          credentials: SELLER_CREDENTIALS,
        });
        demo.push({ account_id: DEMO_ACCOUNT_ID, credentials: seller });
      }
    }

    let url: string | null = null;
    if (roles.has('api')) {
      const endpoints = marketplaceEndpoints(config, simulator);
      const apiLogger = logger.child({ role: 'api' });
      const producer = createProducerRedis(config.REDIS_URL);
      stops.push(() => producer.quit());
      const dispatch = dispatchQueue(producer, config.REDIS_PREFIX);
      // the connections pages hand what a seller connected to the connection workers
      const connections = connectionPagesDeps(config, db, producer, endpoints);
      stops.push(() => connections.queue.close());
      // run_automation's dry runs: runner processes of their own, and a gate every api process shares;
      // two (one run per caller at a time, 30 a minute), not the live pool's twice the cores
      const sandbox = createSandbox({ storeLimits: STORE_LIMITS, runners: 2 });
      stops.push(() => sandbox.close());
      const backtests = backtestQueue(producer, config.REDIS_PREFIX);
      backtests.on('error', (err) => apiLogger.warn({ err: err.message }, 'backtest queue error'));
      stops.push(() => backtests.close());
      // Settings' "Send test" hands its delivery to the workers' queue
      const webhookDeliveries = webhookQueue(producer, config.REDIS_PREFIX);
      webhookDeliveries.on('error', (err) => apiLogger.warn({ err: err.message }, 'webhook queue error'));
      stops.push(() => webhookDeliveries.close());
      // e.g. Redis went away: admission goes on, the workers' sweep finds its receipts
      dispatch.on('error', (err) => apiLogger.warn({ err: err.message }, 'dispatch queue error'));
      stops.push(() => dispatch.close());
      const lwa = createLwaClient({
        tokenUrl: endpoints.lwaTokenUrl,
        clientId: config.LWA_CLIENT_ID,
        clientSecret: config.LWA_CLIENT_SECRET,
      });
      // PORT=0 asks for any free port: taken now, since the OAuth issuer and the /mcp resource name it
      const port = config.PORT === 0 && !config.PUBLIC_BASE_URL ? await freePort(config.HOST) : config.PORT;
      const oauth = await startOAuth({ ...config, PORT: port }, db);
      const app = buildHttpServer({
        db,
        logger: apiLogger,
        oauth,
        authenticate: tokenAuthenticator(db, oauth.checkAccessToken),
        demoUserId: DEMO_USER_ID,
        demoPagesPerMinute: config.DEMO_PAGES_PER_MINUTE,
        store,
        dispatch: { queued: (receiptIds) => enqueueDispatch(dispatch, receiptIds) },
        sandbox,
        dryRuns: { redis: producer, prefix: config.REDIS_PREFIX, runsPerMinute: config.DRY_RUNS_PER_MINUTE },
        backtests: { enqueue: (id) => enqueueBacktest(backtests, id) },
        marketplace: {
          sellingApiUrl: endpoints.sellingApiUrl,
          lwa,
          ...(config.SELLING_REFRESH_TOKEN ? { sellingRefreshToken: config.SELLING_REFRESH_TOKEN } : {}),
          // a user waits on these calls: three quick attempts, not the workers' patient five
          retry: { attempts: 3, minDelayMs: 300, maxDelayMs: 2_000, maxRetryAfterMs: 5_000 },
        },
        // read_amazon_operation: the connections' own credentials, a budget every api process shares
        liveReads: {
          endpoints: { sellingApiUrl: endpoints.sellingApiUrl, adsApiUrl: endpoints.adsApiUrl },
          lwa,
          credentials: credentialsLookup(config, db),
          budget: { redis: producer, prefix: config.REDIS_PREFIX },
          cursorKey: cursorKey(config.LIVE_READ_CURSOR_KEY),
        },
        connections,
        settings: {
          signingKey: config.WEBHOOK_SIGNING_KEY,
          allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
          notifier: webhookNotifier(webhookDeliveries),
        },
        ingestionSecret: config.INGESTION_SECRET,
        accounts: {
          mail: createMailer({
            smtpUrl: config.SMTP_URL,
            from: config.MAIL_FROM,
            env: config.NODE_ENV,
            logger: apiLogger,
          }),
          rateLimit: { redis: producer, prefix: config.REDIS_PREFIX },
          keyring: keyringFrom(config),
        },
        ...(config.PUBLIC_BASE_URL ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
        allowedHosts: config.MCP_ALLOWED_HOSTS,
        allowedOrigins: config.MCP_ALLOWED_ORIGINS,
        trustProxy: config.TRUST_PROXY,
      });
      await waitForDemo(db, demo, apiLogger);
      await app.listen({ port, host: config.HOST });
      stops.push(() => app.close());
      const address = app.server.address();
      url = typeof address === 'object' && address ? `http://${config.HOST}:${address.port}` : null;
    }
    if (roles.has('worker')) {
      // after the api, so that one process's ingestion URL is the port it really listens on
      const base = config.PUBLIC_BASE_URL ?? url ?? `http://${config.HOST}:${config.PORT}`;
      const redis = createRedis(config.REDIS_URL);
      stops.push(() => redis.quit());
      const endpoints = marketplaceEndpoints(config, simulator);
      const streams = await startStreams({
        connection: redis,
        prefix: config.REDIS_PREFIX,
        db,
        ctx: { store, metadata: { actor: { kind: 'worker' as const, id: 'streams' } } },
        subscriber: subscriber({
          db,
          lwa: createLwaClient({
            tokenUrl: endpoints.lwaTokenUrl,
            clientId: config.LWA_CLIENT_ID,
            clientSecret: config.LWA_CLIENT_SECRET,
          }),
          endpoints,
          credentials: credentialsLookup(config, db),
          push: (account_id) => ({
            url: `${base.replace(/\/$/, '')}${ingestionPath(account_id)}`,
            secret: deliverySecret(config.INGESTION_SECRET, account_id),
          }),
        }),
        sweepEveryMs: config.STREAMS_SWEEP_MS,
        graceMs: config.STREAMS_GRACE_MS,
        retryFailedMs: config.STREAMS_RETRY_FAILED_MS,
        confirmPollMs: config.STREAMS_CONFIRM_POLL_MS,
        verifyEveryMs: config.STREAMS_VERIFY_MS,
        now: () => new Date(),
        logger: logger.child({ role: 'worker', worker: 'streams' }),
      });
      stops.push(() => streams.close());
    }
    return { db, store, url, simulator, projector, webhooks, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
