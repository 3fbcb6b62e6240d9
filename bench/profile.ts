import { pino } from 'pino';
import { loadConfig } from '../src/infra/config.js';
import { createRedis, deleteKeys } from '../src/infra/redis.js';
import { createSimulator } from '../src/marketplace/simulator/index.js';
import { DEMO_ACCOUNT_ID, startService, type RunningService } from '../src/service.js';
import { syncQueue } from '../src/workers/sync/queue.js';
import { syncJobs } from '../src/workers/sync/registry.js';
import { admin, databaseUrl, fmt } from './support.js';

// A simulator profile synced through the service's real path (clients, sync jobs, event log,
// projector), for the benchmarks that read it. Syncing the bench profile takes long, so a run
// can keep its database (`keep`) and a later run, of this or another benchmark, reuse it: a
// database that already exists is served as it is, by the api role alone.

export interface ProfileOptions {
  adminUrl: string;
  scale: { listings: number; orderLines: number };
  /** database to create and keep, or to reuse when it exists; a throwaway one when absent */
  keep?: string;
}

export interface SyncFigures {
  syncSeconds: number;
  projectionSeconds: number;
  events: number;
}

export interface Profile {
  service: RunningService & { url: string };
  /** null when an existing database was reused */
  synced: SyncFigures | null;
}

const SEED = 42;

export async function withSyncedProfile(opts: ProfileOptions, fn: (profile: Profile) => Promise<void>): Promise<void> {
  const name = opts.keep ?? `bench_profile_${Date.now()}`;
  const exists = (await admin(opts.adminUrl, `select 1 from pg_database where datname = '${name.replace(/'/g, "''")}'`)).rowCount === 1;
  if (!exists) await admin(opts.adminUrl, `create database "${name}"`);
  const simulator = createSimulator({ seed: SEED, scale: opts.scale });
  const base = await simulator.listen();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl(opts.adminUrl, name),
    REDIS_PREFIX: name,
    PORT: '0',
    LOG_LEVEL: 'silent',
    PROJECTOR_POLL_MS: '200',
    SELLING_API_URL: base,
    ADS_API_URL: base,
    LWA_TOKEN_URL: `${base}/auth/o2/token`,
  });
  const redis = createRedis(config.REDIS_URL);
  try {
    const started = performance.now();
    const roles = exists ? new Set(['api'] as const) : new Set(['api', 'projector', 'worker'] as const);
    const service = await startService(config, roles, pino({ level: 'silent' }));
    try {
      const synced = exists ? null : await waitForSync(service, redis, config.REDIS_PREFIX, started);
      if (synced) {
        console.log(`sync of the whole profile: ${(synced.syncSeconds).toFixed(1)} s; projection caught up ${synced.projectionSeconds.toFixed(1)} s later; ${fmt(synced.events)} events`);
      } else {
        console.log(`reusing the synced database ${name}`);
      }
      await fn({ service: service as RunningService & { url: string }, synced });
    } finally {
      await service.stop();
    }
  } finally {
    await deleteKeys(redis, `${config.REDIS_PREFIX}:*`);
    await redis.quit();
    await simulator.close();
    if (opts.keep === undefined) await admin(opts.adminUrl, `drop database if exists "${name}" with (force)`);
    else console.log(`kept database ${name}: pass --keep ${name} to reuse it`);
  }
}

/** Done when every sync of the demo seller has completed once and nothing is running or waiting, then the projector catches up. */
async function waitForSync(service: RunningService, redis: ReturnType<typeof createRedis>, prefix: string, started: number): Promise<SyncFigures> {
  const queue = syncQueue(redis, prefix);
  try {
    const names = new Set(syncJobs.map((j) => j.name));
    for (;;) {
      // the demo seller holds the profile; the demo vendor's seller syncs finish at once
      const completed = await queue.getJobs(['completed'], 0, 10_000);
      const done = new Set(completed.filter((j) => j.data.account_id === DEMO_ACCOUNT_ID).map((j) => j.name));
      const counts = await queue.getJobCounts('active', 'waiting', 'prioritized');
      const busy = (counts.active ?? 0) + (counts.waiting ?? 0) + (counts.prioritized ?? 0);
      if ([...names].every((n) => done.has(n)) && busy === 0) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const synced = performance.now();
    await service.projector!.whenCaughtUp();
    const projected = performance.now();
    const events = (await service.db.raw('select count(*)::int as n from events')).rows[0].n as number;
    return { syncSeconds: (synced - started) / 1000, projectionSeconds: (projected - synced) / 1000, events };
  } finally {
    await queue.close();
  }
}
