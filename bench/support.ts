import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import pg from 'pg';
import pino from 'pino';
import type { EventStore } from '../src/eventstore/port.js';
import { createEventStore } from '../src/eventstore/index.js';
import { createDb } from '../src/infra/db.js';
import { migrate } from '../src/infra/migrate.js';
import { deleteKeys } from '../src/infra/redis.js';
import type { LwaClient } from '../src/marketplace/clients/index.js';
import type { MarketplaceEndpoints } from '../src/marketplace/simulator/app.js';
import { dispatchClients } from '../src/workers/dispatch/clients.js';
import { startDispatch, type RunningDispatch } from '../src/workers/dispatch/queue.js';
import { endpointsAt, type SimulatorOptions } from '../src/marketplace/simulator/app.js';
import { migrationSteps } from '../src/migrations.js';
import type { Projection } from '../src/projections/projection.js';
import { Projector } from '../src/projections/projector.js';

// What every benchmark shares: a fresh database per run on the given server, and a line
// naming the machine the figures come from.

export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

export function databaseUrl(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function admin(adminUrl: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates database `name`, runs `fn` against it, and drops it whatever happens. */
export async function withDatabase<T>(adminUrl: string, name: string, fn: (url: string) => Promise<T>): Promise<T> {
  await admin(adminUrl, `create database "${name}"`);
  try {
    return await fn(databaseUrl(adminUrl, name));
  } finally {
    await admin(adminUrl, `drop database if exists "${name}" with (force)`);
  }
}

/** p in 0..1 of an ascending list. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** This process's resident memory now and its peak so far (bytes). */
export const memorySample = (): { rss: number; peakRss: number } => ({
  rss: process.memoryUsage.rss(),
  peakRss: process.resourceUsage().maxRSS * 1024,
});

/**
 * The machine's CPU time (every process: ours, the database, the runners) and this process's own,
 * in ms, since the meter started, that of each of `others` (other processes of the benchmark's,
 * with their children), and the database's and Redis's servers (every process of theirs, with the
 * backends they reaped: on a machine shared with other work, theirs too). Under saturation latency swings with whatever else the machine does; CPU
 * per unit of work is the steadier figure. Linux only (/proc), else NaN.
 */
export function cpuMeter(others: readonly number[] = []): () => {
  machineMs: number;
  processMs: number;
  /** this process's children (running and reaped) */
  childrenMs: number;
  others: Array<{ processMs: number; childrenMs: number }>;
  servers: { postgresMs: number; redisMs: number };
} {
  const machine = (): number => {
    try {
      const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
      // user nice system idle iowait irq softirq steal: busy is all but idle and iowait, in 10 ms ticks
      const t = ticks.map(Number);
      return (t[0]! + t[1]! + t[2]! + t[5]! + t[6]! + t[7]!) * 10;
    } catch {
      return NaN;
    }
  };
  const m0 = machine();
  const p0 = process.cpuUsage();
  const o0 = others.map(processCpuOf);
  const c0 = processCpuOf(process.pid).childrenMs;
  const s0 = serversCpu();
  return () => {
    const p = process.cpuUsage(p0);
    const s = serversCpu();
    return {
      machineMs: machine() - m0,
      processMs: (p.user + p.system) / 1000,
      childrenMs: processCpuOf(process.pid).childrenMs - c0,
      others: others.map(processCpuOf).map((o, i) => ({
        processMs: o.processMs - o0[i]!.processMs,
        childrenMs: o.childrenMs - o0[i]!.childrenMs,
      })),
      servers: { postgresMs: s.postgresMs - s0.postgresMs, redisMs: s.redisMs - s0.redisMs },
    };
  };
}

/** CPU time so far of every PostgreSQL and Redis server process (with what they reaped), by command name. */
function serversCpu(): { postgresMs: number; redisMs: number } {
  const sum = { postgresMs: 0, redisMs: 0 };
  try {
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      const s = statOf(Number(d));
      if (s?.comm === 'postgres') sum.postgresMs += s.own + s.reaped;
      else if (s?.comm === 'redis-server') sum.redisMs += s.own + s.reaped;
    }
    return sum;
  } catch {
    return { postgresMs: NaN, redisMs: NaN };
  }
}

/** Another process's peak resident memory in bytes (Linux: VmHWM), or NaN where that can't be read. */
export function peakRssOf(pid: number | undefined): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return hwm ? Number(hwm[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** utime, stime, cutime and cstime of /proc/<pid>/stat in ms (10 ms ticks), the parent's pid and the command name; null once gone. */
function statOf(pid: number): { own: number; reaped: number; ppid: number; comm: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // after the command name, which may hold spaces and parentheses: state ppid … utime (14th) stime cutime cstime
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      ppid: Number(f[1]),
      own: (Number(f[11]) + Number(f[12])) * 10,
      reaped: (Number(f[13]) + Number(f[14])) * 10,
    };
  } catch {
    return null;
  }
}

/** The pids of the processes whose parent is `pid`, now. */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
      .filter((p) => statOf(p)?.ppid === pid);
  } catch {
    return [];
  }
}

/**
 * Another process's CPU time (user + system) in ms, and its children's: those running now and
 * those it has reaped (a sandbox runner replaced meanwhile). Linux only, else NaN.
 */
export function processCpuOf(pid: number): { processMs: number; childrenMs: number } {
  const s = statOf(pid);
  if (!s) return { processMs: NaN, childrenMs: NaN };
  const running = childrenOf(pid).reduce((sum, child) => sum + (statOf(child)?.own ?? 0), 0);
  return { processMs: s.own, childrenMs: s.reaped + running };
}

/**
 * The machine line, and the database server's version when the benchmark uses one. Also makes
 * the benchmark print its process's peak resident memory when it exits, so every benchmark
 * shows whether something in it grows without bound.
 */
export async function printMachine(adminUrl?: string): Promise<void> {
  process.once('exit', () => console.log(`peak RSS of the benchmark's process: ${mib(memorySample().peakRss)}`));
  const cpus = os.cpus();
  console.log(
    `machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  if (!adminUrl) return;
  const { rows } = await admin(adminUrl, 'select version()');
  console.log(`server:  ${String(rows[0].version)}`);
}

/**
 * The simulator in a process of its own (bench/simulator-process.ts), as a remote marketplace:
 * its work (routing, generating and serializing answers) is not on the benchmark's event loop,
 * nor its memory in the benchmark's figures. `memory` is its latest report.
 */
export function simulatorProcess(options: Pick<SimulatorOptions, 'seed' | 'scale'> = {}) {
  const child: ChildProcess = fork(new URL('./simulator-process.js', import.meta.url), [JSON.stringify(options)]);
  const state = { memory: { rss: 0, peakRss: 0 } };
  const base = new Promise<string>((resolve, reject) => {
    child.on('message', (m: { base?: string; memory?: { rss: number; peakRss: number } }) => {
      if (m.base) resolve(m.base);
      if (m.memory) state.memory = m.memory;
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the simulator process exited (${code})`)));
  });
  return {
    base,
    pid: child.pid,
    get memory() {
      return state.memory;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // a channel closed meanwhile: the process is on its way out, and 'exit' says when it is gone
      child.send('close', () => undefined);
      await exited;
    },
  };
}

/**
 * The service's storage on `url` (migrated for `projections`), a projector following it, and the
 * simulator in a process of its own (the demo's scale unless `scale` says otherwise).
 */
export async function startBenchStack(url: string, projections: Projection[], scale?: SimulatorOptions['scale']) {
  // first: a simulator that does not start leaves nothing else running
  const marketplace = simulatorProcess(scale ? { scale } : {});
  const endpoints = endpointsAt(
    await marketplace.base.catch(async (err: unknown) => {
      await marketplace.close();
      throw err;
    }),
  );
  const db = createDb(url, { min: 0, max: 20 });
  const store = createEventStore({ DATABASE_URL: url });
  try {
    await migrate(db, migrationSteps(projections, { eventStoreInPostgres: true }));
  } catch (err) {
    await Promise.all([marketplace.close(), store.close(), db.destroy()]);
    throw err;
  }
  // as the projector role runs it: on a pool of its own (PROJECTOR_CONNECTIONS), with its poll
  // interval (PROJECTOR_POLL_MS) by default; appends wake it
  const projectorDb = createDb(url, { min: 0, max: 4 });
  const projector = new Projector(projectorDb, store, projections);
  projector.start();
  return {
    db,
    store,
    projector,
    simulator: { endpoints: () => endpoints, memory: () => marketplace.memory, pid: marketplace.pid },
    async close() {
      await projector.stop();
      await marketplace.close();
      await store.close();
      await projectorDb.destroy();
      await db.destroy();
    },
  };
}

/**
 * The real dispatch worker on its own Redis key prefix, sending a seller's receipts to the
 * simulator as the worker role does; `close` stops it and deletes its keys.
 */
export async function startBenchDispatch(o: {
  db: Knex;
  store: EventStore;
  lwa: LwaClient;
  endpoints: MarketplaceEndpoints;
  sellerToken: string;
  redisUrl: string;
  prefix: string;
  concurrency: number;
}): Promise<RunningDispatch & { close(): Promise<void> }> {
  const redis = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
  const dispatch = await startDispatch({
    connection: redis,
    prefix: o.prefix,
    db: o.db,
    ctx: { store: o.store, metadata: { actor: { kind: 'worker', id: 'dispatch' } } },
    ...dispatchClients({
      db: o.db,
      lwa: o.lwa,
      endpoints: o.endpoints,
      credentials: () => ({ selling_refresh_token: o.sellerToken }),
      timeoutMs: 10_000,
    }),
    now: Date.now,
    backoff: { baseMs: 100, maxMs: 2000 },
    batchSize: 10,
    reconcileEveryMs: 60_000,
    sweepEveryMs: 1000,
    concurrency: o.concurrency,
    logger: pino({ level: 'warn' }),
  });
  return {
    ...dispatch,
    async close() {
      await dispatch.close();
      await deleteKeys(redis, `${o.prefix}:*`);
      redis.disconnect();
    },
  };
}

/** Runs a benchmark's `main` and exits: with its code (0 when it returns none), or 1 with the error printed. */
export function runMain(main: () => Promise<number | void>): void {
  main().then(
    (code) => process.exit(code ?? 0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
