import { pino } from 'pino';
import { loadConfig } from '../src/infra/config.js';
import { BENCH_SCALE } from '../src/marketplace/simulator/index.js';
import { createRedis, deleteKeys } from '../src/infra/redis.js';
import { maintainTables } from '../src/projections/maintenance.js';
import { DEMO_ACCOUNT_ID, startService, type RunningService } from '../src/service.js';
import { syncQueue } from '../src/workers/sync/queue.js';
import { syncJobs } from '../src/workers/sync/registry.js';
import { measureFloor } from './floor.js';
import { admin, databaseUrl, fmt, memorySample, mib, simulatorProcess } from './support.js';

// A simulator profile synced through the service's real path (clients, sync jobs, event log,
// projector), for the benchmarks that read it. The simulator runs in a process of its own, as a
// remote marketplace would: its work and memory are not the service's. Syncing the bench profile takes
// long, so a run can keep its database (`keep`) and a later run, of this or another benchmark,
// reuse it: a database that already exists is served as it is, by the api role alone.

export interface ProfileOptions {
  adminUrl: string;
  scale: { listings: number; orderLines: number };
  /** database to create and keep, or to reuse when it exists; a throwaway one when absent */
  keep?: string;
}

/**
 * The command-line options every profile benchmark takes, for parseArgs: the profile's size (the
 * bench profile unless `scale` says otherwise), a database to keep or reuse, the admin URL.
 */
export const profileOptions = (scale: ProfileOptions['scale'] = BENCH_SCALE) =>
  ({
    listings: { type: 'string', default: String(scale.listings) },
    'order-lines': { type: 'string', default: String(scale.orderLines) },
    keep: { type: 'string' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  }) as const;

/** The profile's size as profileOptions parsed it. */
export const scaleOf = (values: { listings: string; 'order-lines': string }): ProfileOptions['scale'] => ({
  listings: Number(values.listings),
  orderLines: Number(values['order-lines']),
});

export interface Profile {
  service: RunningService & { url: string };
}

const SEED = 42;
const seconds = (ms: number) => (ms / 1000).toFixed(1);

export async function withSyncedProfile(opts: ProfileOptions, fn: (profile: Profile) => Promise<void>): Promise<void> {
  const name = opts.keep ?? `bench_profile_${Date.now()}`;
  const exists =
    (await admin(opts.adminUrl, `select 1 from pg_database where datname = '${name.replace(/'/g, "''")}'`)).rowCount ===
    1;
  if (!exists) await admin(opts.adminUrl, `create database "${name}"`);
  const simulator = simulatorProcess({ seed: SEED, scale: opts.scale });
  const base = await simulator.base;
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl(opts.adminUrl, name),
    REDIS_PREFIX: name,
    PORT: '0',
    // BENCH_LOG_LEVEL=info shows the service's own log on stderr (the syncs' runs and retries)
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    PROJECTOR_POLL_MS: '200',
    SELLING_API_URL: base,
    ADS_API_URL: base,
    LWA_TOKEN_URL: `${base}/auth/o2/token`,
    // the simulator runs in a process of its own, so the service does not know it is the marketplace
    INGESTION_SECRET: process.env.INGESTION_SECRET ?? 'bench-ingestion-secret',
  });
  const redis = createRedis(config.REDIS_URL);
  try {
    const started = performance.now();
    // a kept database gets a projector too: it rebuilds any projection whose version moved on since
    const roles = exists ? new Set(['api', 'projector'] as const) : new Set(['api', 'projector', 'worker'] as const);
    // on stderr: stdout has the figures
    const service = await startService(config, roles, pino({ level: config.LOG_LEVEL }, pino.destination(2)));
    try {
      if (exists) {
        await service.projector!.whenCaughtUp();
        console.log(
          `reusing the synced database ${name}; projections caught up ${seconds(performance.now() - started)} s after start`,
        );
      } else {
        const sync = await waitForSync(service, redis, config.REDIS_PREFIX, started, simulator);
        await printFloor(config.DATABASE_URL, sync, simulator);
      }
      // what the projector role's maintenance does each minute, done now: measure the tables as they are then
      const done = await maintainTables(service.db);
      console.log(
        `before measuring: vacuumed ${done.vacuumed.length}, analyzed ${done.analyzed.length} read-model tables`,
      );
      await fn({ service: service as RunningService & { url: string } });
    } finally {
      await service.stop();
    }
  } finally {
    await deleteKeys(redis, `${config.REDIS_PREFIX}:*`);
    await redis.quit();
    await simulator.close();
    console.log(
      `peak RSS: simulator process ${mib(simulator.memory.peakRss)}; service process (api, projector and worker roles, and this benchmark) ${mib(memorySample().peakRss)}`,
    );
    if (opts.keep === undefined) await admin(opts.adminUrl, `drop database if exists "${name}" with (force)`);
    else console.log(`kept database ${name}: pass --keep ${name} to reuse it`);
  }
}

/**
 * Done when every sync of the demo seller (the profile) has completed once and nothing is
 * running or waiting (retries and next runs are delayed jobs, not counted), then the projector
 * catches up. A progress line each minute.
 */
async function waitForSync(
  service: RunningService,
  redis: ReturnType<typeof createRedis>,
  prefix: string,
  started: number,
  simulator: { memory: { rss: number } },
): Promise<{ wholeMs: number; landedMs: number }> {
  const queue = syncQueue(redis, prefix);
  try {
    const names = new Set(syncJobs.map((j) => j.name));
    let reported = performance.now();
    for (;;) {
      const completed = await queue.getJobs(['completed'], 0, 10_000);
      const done = new Set(completed.filter((j) => j.data.account_id === DEMO_ACCOUNT_ID).map((j) => j.name));
      const counts = await queue.getJobCounts('active', 'waiting', 'prioritized');
      const busy = (counts.active ?? 0) + (counts.waiting ?? 0) + (counts.prioritized ?? 0);
      if ([...names].every((n) => done.has(n)) && busy === 0) break;
      if (performance.now() - reported >= 60_000) {
        reported = performance.now();
        const active = (await queue.getJobs(['active'])).map((j) => j.name);
        const progress = (
          await service.db.raw(`select (select count(*) from events)::int as events,
          (select count(*) from rm.order_lines)::int as lines, (select count(*) from rm.listings)::int as listings`)
        ).rows[0] as Record<string, number>;
        console.log(
          `  ${seconds(reported - started)} s: done ${[...names].filter((n) => done.has(n)).join(', ') || 'nothing yet'}; running ${active.join(', ')}; ${fmt(progress.events!)} events, ${fmt(progress.lines!)} order lines and ${fmt(progress.listings!)} listing rows projected; RSS simulator ${mib(simulator.memory.rss)}, service ${mib(memorySample().rss)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const synced = performance.now();
    const finished = await printSyncTimes(queue, started);
    await service.projector!.whenCaughtUp();
    const projected = performance.now();
    const events = (await service.db.raw('select count(*)::int as n from events')).rows[0].n as number;
    console.log(
      `sync of the whole profile: ${seconds(synced - started)} s; projection caught up ${seconds(projected - synced)} s later; ${fmt(events)} events`,
    );
    // the syncs whose rows the floor loads (listings, orders, economics); the others sync ads and reports
    const landed = Math.max(...['listings', 'orders', 'seller-economics'].map((n) => finished.get(n) ?? NaN));
    return { wholeMs: projected - started, landedMs: landed };
  } finally {
    await queue.close();
  }
}

/**
 * The floor beside the sync (bench/floor.ts), and the ratios: the whole sync's time until projected,
 * and the time until the last of the syncs that land the floor's rows finished, ÷ the floor's.
 * The peak RSS so far is the sync's (the floor streams its rows).
 */
async function printFloor(
  url: string,
  sync: { wholeMs: number; landedMs: number },
  simulator: { memory: { peakRss: number } },
): Promise<void> {
  console.log(
    `peak RSS during the sync: simulator ${mib(simulator.memory.peakRss)}, service process ${mib(memorySample().peakRss)}`,
  );
  const floor = await measureFloor(url);
  console.log(
    `floor, the same rows loaded with COPY into scratch tables with their indexes: ${seconds(floor.ms)} s (${floor.tables
      .map((t) => `${t.table} ${fmt(t.rows)} rows, ${mib(t.bytes)}, ${seconds(t.ms)} s`)
      .join('; ')})`,
  );
  const ratio = (ms: number) => `${(ms / floor.ms).toFixed(1)}× (${seconds(ms)} s ÷ ${seconds(floor.ms)} s)`;
  console.log(
    `sync ÷ floor: listings, orders and economics synced ${ratio(sync.landedMs)}; whole sync until projected ${ratio(sync.wholeMs)}`,
  );
}

/** When each sync's first run was queued and when it finished (waits for reports included); the finishes in ms after start. */
async function printSyncTimes(queue: ReturnType<typeof syncQueue>, started: number): Promise<Map<string, number>> {
  const since = (at: number | undefined): string =>
    at === undefined ? '?' : seconds(at - performance.timeOrigin - started);
  const runs = (await queue.getJobs(['completed'], 0, 10_000))
    .filter((j) => j.data.account_id === DEMO_ACCOUNT_ID)
    .sort((a, b) => (a.finishedOn ?? 0) - (b.finishedOn ?? 0));
  const first = new Map(runs.reverse().map((j) => [j.name, j]));
  console.log(
    `syncs (queued → finished, s after start): ${[...first.values()]
      .map((j) => `${j.name} ${since(j.timestamp)} → ${since(j.finishedOn)}`)
      .join('; ')}`,
  );
  return new Map([...first].map(([name, j]) => [name, (j.finishedOn ?? NaN) - performance.timeOrigin - started]));
}
