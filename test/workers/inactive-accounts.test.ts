import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { Job, Queue, Worker } from 'bullmq';
import { pino } from 'pino';
import { RAW_DATASETS, rawDataKeptUntil } from '../../src/domain/account/raw-data.js';
import type { ConnectionKind } from '../../src/domain/account/events.js';
import { pageStreamId, scopeStreamId } from '../../src/domain/observation/decide.js';
import { ORDERS_DATASET, SP_CAMPAIGN_DAILY } from '../../src/domain/observation/datasets.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { loadAccounts, type AccountView } from '../../src/projections/accounts/queries.js';
import { RAW_PAGE_TABLES } from '../../src/projections/accounts/retention.js';
import { observationsProjection } from '../../src/projections/observations/projection.js';
import { adsProjection } from '../../src/projections/observed/ads.js';
import { catalogItemsProjection } from '../../src/projections/observed/catalog.js';
import { fbaInventoryProjection } from '../../src/projections/observed/inventory.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { ordersProjection } from '../../src/projections/observed/orders.js';
import { READ_MODEL_SCHEMA } from '../../src/projections/projection.js';
import {
  connectionsWorker,
  type ConnectionSyncJob,
  type ConnectionSyncResult,
} from '../../src/workers/connections-queue.js';
import { eventRetentionWorker } from '../../src/workers/events/retention-queue.js';
import { keepSchedules, type RunningScheduleKeeper, type ScheduleQueues } from '../../src/workers/schedules.js';
import { scheduleQueues, schedulerKeys } from '../support/schedules.js';
import { adsCampaignMetricsSync } from '../../src/workers/sync/ads-metrics.js';
import { ReportNotReady } from '../../src/workers/sync/reports.js';
import { adsEntitiesSync } from '../../src/workers/sync/ads-entities.js';
import { catalogSync } from '../../src/workers/sync/catalog.js';
import { inventorySync } from '../../src/workers/sync/inventory.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { ordersSync } from '../../src/workers/sync/orders.js';
import { syncWorker } from '../../src/workers/sync/queue.js';
import { admin, dropRedisKeys, TEST_DB_NAME, TEST_REDIS_PREFIX, testDatabaseUrl } from '../support/env.js';
import { ADS_TOKEN, revokeRefreshToken, SELLING_TOKEN } from '../support/marketplace.js';
import { cli, eventually } from '../support/processes.js';
import { assertRebuildEqualsLive } from '../support/projections.js';
import { startHarness, type Harness } from '../support/observed.js';

// Spec 8's last retention row, end to end: an account's connections go inactive (the marketplace
// refuses the selling authorization for good; an operator deactivates advertising), their syncs
// stop, the hourly retention job run through its BullMQ worker with its clock moved prunes the raw
// provider data 30 days from the day the connection went inactive, and keeps what spec 8 keeps
// without a limit; a reconnection makes a connection active again and stops its clock. The
// simulator over HTTP, the real clients, Redis on a prefix of this test, a database of its own (the
// keeper schedules every account it finds).

const DAY_MS = 86_400_000;
/** the syncs the keeper schedules here: the raw datasets' (the kept ones are read once, in `before`) */
const JOBS = [listingsSync, catalogSync, inventorySync, adsEntitiesSync];
const SELLING_PAGES = RAW_PAGE_TABLES.selling.map((t) => t.table);
const DERIVED = ['listing_current', 'listing_scopes', 'listing_targets'];
const PROJECTIONS = [
  listingsProjection,
  fbaInventoryProjection,
  catalogItemsProjection,
  ordersProjection,
  adsProjection,
];

describe('an inactive connection: no syncs, raw provider data pruned 30 days from the day it went inactive, back on reconnection', function () {
  this.timeout(900_000);
  let h: Harness;
  let redis: Redis;
  let account: string;
  /** another seller account, active throughout: what its raw data leaves in the tables must stay */
  let other: string;
  let env: Record<string, string>;
  let queues: ScheduleQueues;
  let workers: { connections: Worker<ConnectionSyncJob, ConnectionSyncResult>; data: Worker; retention: Worker };
  let keeper: RunningScheduleKeeper;
  /** the retention job's clock */
  let retentionNow = Date.now();
  const prefix = `${TEST_REDIS_PREFIX}-inactive-${randomUUID().slice(0, 8)}`;
  const database = `${TEST_DB_NAME}_inactive`;

  const rm = (table: string, account_id = account) =>
    h.db.withSchema(READ_MODEL_SCHEMA).table(table).where({ account_id });
  const count = async (table: string) => Number((await rm(table).count({ n: '*' }))[0]!.n);
  const counts = async (tables: readonly string[]) =>
    Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
  const scopes = async (
    datasets: readonly string[],
    account_id = account,
  ): Promise<Array<{ dataset: string; scope: string; pages: number }>> =>
    rm('observed_scopes', account_id)
      .whereIn('dataset', datasets)
      .orderBy(['dataset', 'scope'])
      .select('dataset', 'scope', 'pages');
  const connection = async (kind: ConnectionKind) => {
    const [view] = await loadAccounts(h.db, (await rm('accounts').first('user_id')).user_id);
    return view![kind] as NonNullable<AccountView['selling']> | NonNullable<AccountView['ads']>;
  };
  const shown = async () => {
    await h.projector.whenCaughtUp();
  };
  const schedulers = () => schedulerKeys(queues);
  /** A one-off job run through its worker, to its end. */
  async function run<T>(queue: Queue<T>, name: string, data: T): Promise<Job<T>> {
    const job = await queue.add(name as never, data as never, { jobId: `${name}-${randomUUID()}`, attempts: 1 });
    return eventually(
      async () => {
        const state = await job.getState();
        return state === 'completed' || state === 'failed' ? ((await queue.getJob(job.id!)) as Job<T>) : undefined;
      },
      `${name} job to finish`,
      300_000,
    );
  }
  const prune = async (now: number) => {
    retentionNow = now;
    await shown();
    const job = await run(queues.retention, 'prune', {});
    expect(job.failedReason).to.equal(undefined);
    return (job.returnvalue as { raw_data_scopes: number }).raw_data_scopes;
  };
  const revoke = (refresh_token: string, revoked: boolean) =>
    revokeRefreshToken(h.simulator.endpoints().sellingApiUrl, refresh_token, revoked);
  const requests = (path: RegExp) => h.simulator.requests.list().filter((r) => path.test(r.path)).length;
  const LISTINGS_READS = /^\/listings\/2021-08-01\/items\//;
  const streamsOf = async (datasets: readonly string[]) =>
    (await scopes(datasets)).flatMap(({ dataset, scope, pages }) => {
      const key = { account_id: account, dataset, scope };
      return [
        ...Array.from({ length: pages }, (_, page) => `observation-${pageStreamId(key, page)}`),
        `observation-${scopeStreamId(key)}`,
      ];
    });

  before(async function () {
    this.timeout(600_000);
    await admin((c) => c.query(`create database "${database}"`));
    const url = testDatabaseUrl(database);
    h = await startHarness(PROJECTIONS, [], Date.now(), 11, url);
    account = await h.connect('seller');
    other = await h.connect('seller');
    env = { DATABASE_URL: url, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' };
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    queues = scheduleQueues(redis, prefix);
    const credentials = (name: string) =>
      name === 'seller' ? { selling_refresh_token: SELLING_TOKEN, ads_refresh_token: ADS_TOKEN } : undefined;
    const deps = { ...h.deps(SELLING_TOKEN), credentials, connection: redis, prefix };
    // what spec 8 keeps without a limit: a year of orders, two weeks of daily campaign metrics
    await ordersSync.run(deps, account);
    for (const metrics = adsCampaignMetricsSync({ historyDays: 14 }); ;) {
      const ready = await metrics.run(deps, account).catch((err: unknown) => {
        if (err instanceof ReportNotReady) return null;
        throw err;
      });
      if (ready) break;
    }
    workers = {
      connections: connectionsWorker(deps),
      data: syncWorker(deps, JOBS),
      retention: eventRetentionWorker({ ...deps, now: () => new Date(retentionNow) }),
    };
    keeper = keepSchedules({
      db: h.db,
      queues,
      jobs: JOBS,
      hasCredentials: (name) => name === 'seller',
      everyMs: 500,
      logger: pino({ level: 'silent' }),
    });
  });
  after(async () => {
    await keeper?.close();
    for (const w of Object.values(workers ?? {})) await w.close(true);
    for (const q of Object.values(queues ?? {})) await q.close();
    redis?.disconnect();
    await h?.close();
    await dropRedisKeys(`${prefix}*`);
    await admin((c) => c.query(`drop database if exists "${database}" with (force)`));
  });

  it('knows the page table of every raw dataset of each connection', () => {
    for (const kind of ['selling', 'ads'] as const)
      expect(RAW_PAGE_TABLES[kind].flatMap((t) => t.datasets)).to.have.members([...RAW_DATASETS[kind]]);
  });

  it("syncs the accounts' raw data through the worker, as the keeper schedules it", async () => {
    const wanted = [...RAW_DATASETS.selling, 'sp_campaigns', 'sp_ad_groups'];
    for (const id of [account, other])
      await eventually(
        async () => {
          const read = new Set((await scopes(wanted, id)).map((s) => s.dataset));
          return wanted.every((d) => read.has(d)) ? true : undefined;
        },
        'every sync to have read once',
        600_000,
      );
    await shown();
    for (const table of [...SELLING_PAGES, ...DERIVED, 'ads_campaigns', 'orders', 'ads_campaign_daily'])
      expect(await count(table), table).to.be.greaterThan(0);
  });

  it('a connection whose authorization the marketplace refuses for good goes inactive at the next connection sync; its syncs read nothing, the other connection goes on', async () => {
    await revoke(SELLING_TOKEN, true);
    const { user_id } = await rm('accounts').first('user_id');
    const job = await run(queues.connections, 'sync', { user_id, account_id: account, credentials: 'seller' });
    expect(job.failedReason).to.equal(undefined);
    expect(job.returnvalue).to.deep.equal({ recorded: 1, active: true });
    const selling = await connection('selling');
    expect(selling).to.include({ connected: false, active: false });
    expect(selling.inactive!.cause).to.equal('authorization_refused');
    expect(await connection('ads')).to.include({ connected: true, inactive: null });

    const [listingReads, campaignReads] = [requests(LISTINGS_READS), requests(/^\/sp\/campaigns\/list$/)];
    for (const sync of [listingsSync, inventorySync]) {
      const done = await run(queues.data, sync.name, { account_id: account });
      expect(done.returnvalue, sync.name).to.deep.equal({ recorded: 0 });
    }
    expect(await h.run(ordersSync, account, SELLING_TOKEN), 'orders').to.equal(0);
    expect(requests(LISTINGS_READS), 'no listings read').to.equal(listingReads);
    await run(queues.data, adsEntitiesSync.name, { account_id: account });
    expect(requests(/^\/sp\/campaigns\/list$/), 'the advertising connection is still read').to.be.greaterThan(
      campaignReads,
    );
  });

  it("an operator deactivates the other: both show inactive, and the schedule keeper removes the account's syncs", async () => {
    expect(
      await cli(
        ['accounts', 'deactivate', '--account', account, '--connection', 'ads', '--reason', 'billing ended'],
        env,
      ),
    ).to.equal('ads: inactive');
    const ads = await connection('ads');
    expect(ads).to.include({ connected: true, active: false });
    expect(ads.inactive).to.include({ cause: 'operator', detail: 'billing ended' });
    expect(await cli(['accounts', 'deactivate', '--account', account], env)).to.equal(
      'selling: inactive already\nads: inactive already',
    );
    await eventually(
      async () => ((await schedulers()).some((key) => key.endsWith(account)) ? undefined : true),
      "the keeper to remove the account's schedulers",
    );
    expect(await schedulers(), "the other account's stay").to.include.members([
      `connections-${other}`,
      ...JOBS.map((j) => `${j.name}-${other}`),
      'event-retention',
    ]);
  });

  it('the retention job prunes nothing before 30 days from the day the connection went inactive', async () => {
    const before = await counts([...SELLING_PAGES, ...DERIVED, 'ads_campaigns']);
    const since = (await connection('selling')).inactive!.since;
    expect(await prune(rawDataKeptUntil(since).getTime() - 1)).to.equal(0);
    expect(await counts([...SELLING_PAGES, ...DERIVED, 'ads_campaigns'])).to.deep.equal(before);
  });

  it("the operator's reconnection makes advertising active again (its clock stops); selling, still refused, stays inactive and the job fails naming it", async () => {
    const sellingSince = (await connection('selling')).inactive!.since;
    expect(await cli(['accounts', 'reconnect', '--account', account], env)).to.match(/^reconnecting /);
    const failed = await eventually(
      async () => (await queues.connections.getFailed()).find((j) => j.data.reconnect),
      'the reconnection job',
    );
    expect(failed.failedReason).to.match(/refuses the selling authorization .* it stays inactive/);
    await shown();
    expect(await connection('ads')).to.include({ connected: true, inactive: null });
    expect((await connection('selling')).inactive!.since).to.equal(sellingSince);
    await eventually(
      async () => ((await schedulers()).includes(`connections-${account}`) ? true : undefined),
      'the keeper to re-establish the syncs',
    );
  });

  it('30 days from that day, the retention job prunes the inactive connection’s raw data with its rows and keeps the rest; rebuilding gives the live tables', async () => {
    const since = (await connection('selling')).inactive!.since;
    await workers.data.pause();
    try {
      await shown();
      const sellingStreams = await streamsOf(RAW_DATASETS.selling);
      const adsScopes = await scopes(RAW_DATASETS.ads);
      const kept = { orders: await scopes([ORDERS_DATASET]), daily: await scopes([SP_CAMPAIGN_DAILY]) };
      const keptRows = await counts(['orders', 'ads_campaign_daily', 'ads_campaigns', 'ads_targets']);
      const sellingScopes = (await scopes(RAW_DATASETS.selling)).length;
      const others = { scopes: await scopes([...RAW_DATASETS.selling, ...RAW_DATASETS.ads], other) };

      expect(await prune(rawDataKeptUntil(since).getTime())).to.equal(sellingScopes);
      for (const stream of sellingStreams) expect(await h.store.readStream(stream), stream).to.deep.equal([]);
      expect(await scopes(RAW_DATASETS.selling)).to.deep.equal([]);
      expect(await counts([...SELLING_PAGES, ...DERIVED])).to.deep.equal(
        Object.fromEntries([...SELLING_PAGES, ...DERIVED].map((t) => [t, 0])),
      );
      expect(await scopes(RAW_DATASETS.ads), 'the reconnected advertiser keeps its entities').to.deep.equal(adsScopes);
      expect(await scopes([ORDERS_DATASET])).to.deep.equal(kept.orders);
      expect(await scopes([SP_CAMPAIGN_DAILY])).to.deep.equal(kept.daily);
      expect(await counts(['orders', 'ads_campaign_daily', 'ads_campaigns', 'ads_targets'])).to.deep.equal(keptRows);
      expect(await scopes([...RAW_DATASETS.selling, ...RAW_DATASETS.ads], other), 'the active account').to.deep.equal(
        others.scopes,
      );

      expect(await prune(rawDataKeptUntil(since).getTime() + DAY_MS), 'a second run finds nothing').to.equal(0);
      for (const projection of [...PROJECTIONS, observationsProjection, accountsProjection])
        await assertRebuildEqualsLive(h.db, h.store, projection);
    } finally {
      workers.data.resume();
    }
  });

  it('authorized again, a reconnection makes selling active: its listings are read again, and no clock runs', async () => {
    await revoke(SELLING_TOKEN, false);
    const before = new Set((await queues.connections.getJobs(['completed', 'failed'])).map((j) => j.id));
    await cli(['accounts', 'reconnect', '--account', account], env);
    const job = await eventually(
      async () =>
        (await queues.connections.getJobs(['completed', 'failed'])).find((j) => j.data.reconnect && !before.has(j.id)),
      'the reconnection job',
      300_000,
    );
    expect(job.failedReason).to.equal(undefined);
    expect(job.returnvalue).to.deep.equal({ recorded: 1, active: true });
    await shown();
    expect(await connection('selling')).to.include({ connected: true, active: true });
    expect((await connection('selling')).inactive).to.equal(null);
    const done = await run(queues.data, listingsSync.name, { account_id: account });
    expect((done.returnvalue as { recorded: number }).recorded).to.be.greaterThan(0);
    await shown();
    expect(await count('listing_current')).to.be.greaterThan(0);
    expect(await prune(retentionNow + 365 * DAY_MS), 'active connections keep their data').to.equal(0);
    expect(await count('listing_current')).to.be.greaterThan(0);
  });
});
