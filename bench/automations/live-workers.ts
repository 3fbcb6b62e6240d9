import { randomBytes, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { partitionOf } from '../../src/domain/shared/partitions.js';
import { newId } from '../../src/domain/shared/ids.js';
import { createRedis, deleteKeys } from '../../src/infra/redis.js';
import { projections } from '../../src/projections/registry.js';
import { LIVE_RUNS_CHECKPOINT } from '../../src/runtime/live/reactor.js';
import { createVault, parseKeyring, VAULT_PREFIX } from '../../src/secrets/vault.js';
import { connectionSchedulerId, connectionsQueue } from '../../src/workers/connections-queue.js';
import { syncQueue, syncSchedulerId } from '../../src/workers/sync/queue.js';
import { syncJobs } from '../../src/workers/sync/registry.js';
import { listingSubmissions } from '../../test/support/marketplace.js';
import { recordOfferChange, type OfferTarget } from '../../test/support/offer-changes.js';
import { eventually } from '../../test/support/processes.js';
import { killIfRunning, startServiceProcess, type RunningServiceProcess } from '../../test/support/service.js';
import { statementCounter } from '../statements.js';
import { childrenOf, cpuMeter, fmt, mib, peakRssOf, percentile, startBenchStack, withDatabase } from '../support.js';
import {
  burst,
  countLog,
  drained,
  liveRepricer,
  logTail,
  offer,
  printCounts,
  settled,
  unsent,
  type LiveFigures,
} from './live-drive.js';
import { printLatencies, type LiveOptions } from './live.js';
import { ADVERTISER, SELLER, syncedSeller } from './seller.js';

// The `live` phase with `--workers N`: the service's own worker processes (`--role worker`, as a
// deployment runs them) share live runs on one database, each holding its partitions of the
// accounts as leases (docs/decisions/135-partitioned-live-runs.md); this process records the
// events as ingestion does and runs the projector role's projections. The seller is connected as
// two accounts per worker, one in each partition, so the events spread evenly over the workers,
// each account as a seller connects through the connections pages: its refresh tokens in the
// secret vault, where the workers' dispatchers find them to send the patches to the simulator.
// The accounts are as a deployment holds them between syncs (syncsDueLater): their listings
// synced by this process, their sync schedulers in Redis with the next runs due later, so the
// workers run no start-up syncs in the window. The workers have no operator credential set, so
// they connect no demo account. Each worker process is started with bench/statements-preload.ts,
// which counts its statements and tells this process the count over an IPC channel. From the log:
// event → admitted receipt by the log's own times (the event's append and its receipt's
// admission, the database's clock).

const ACCOUNTS_PER_WORKER = 2;
/** the connection syncs' interval (src/workers/connections-queue.ts) */
const CONNECTION_SYNC_EVERY_MS = 15 * 60_000;
const PRELOAD = fileURLToPath(new URL('../statements-preload.js', import.meta.url));

/** How many statements the worker process has sent since it started (statements-preload.ts answers). */
function statementsOf(w: RunningServiceProcess): Promise<number> {
  const child = w.spawned.child;
  return new Promise((resolve) => {
    const answer = (m: { statements?: number }) => {
      if (m.statements === undefined) return;
      child.off('message', answer);
      resolve(m.statements);
    };
    child.on('message', answer);
    child.send('statements');
  });
}

const sumOf = (list: readonly number[]) => list.reduce((a, b) => a + b, 0);

/**
 * The accounts' job schedulers as the workers' keeper (src/workers/schedules.ts) makes them, but
 * each next run due an interval from now instead of at once, as between two syncs: the keeper
 * finds none missing and adds none, so no sync runs in the window.
 */
async function syncsDueLater(
  redis: ReturnType<typeof createRedis>,
  prefix: string,
  accounts: ReadonlyArray<{ user_id: string; account_id: string; credentials: string }>,
): Promise<void> {
  const later = (every: number) => ({ every, startDate: Date.now() + every });
  const connections = connectionsQueue(redis, prefix);
  const data = syncQueue(redis, prefix);
  try {
    for (const job of accounts) {
      await connections.upsertJobScheduler(connectionSchedulerId(job.account_id), later(CONNECTION_SYNC_EVERY_MS), {
        name: 'sync',
        data: job,
      });
      for (const sync of syncJobs)
        await data.upsertJobScheduler(syncSchedulerId(sync.name, job.account_id), later(sync.everyMs), {
          name: sync.name,
          data: { account_id: job.account_id },
        });
    }
  } finally {
    await Promise.all([connections.close(), data.close()]);
  }
}

export async function liveWorkersPhase(o: LiveOptions & { workers: number }): Promise<LiveFigures> {
  const partitions = o.workers * ACCOUNTS_PER_WORKER;
  console.log(
    `live, ${o.workers} worker processes: ANY_OFFER_CHANGED events at ${o.rate}/s for ${o.seconds} s, then a burst of ${o.burst}, then half the saturation rate for ${o.halfSeconds} s; ${partitions} accounts of one seller, one in each of ${partitions} partitions; live runs and dispatch in the workers, the projector in this process, the marketplace simulator in a process of its own`,
  );
  let figures: LiveFigures | undefined;
  await withDatabase(o.adminUrl, `bench_live_workers_${Date.now()}`, async (url) => {
    const stack = await startBenchStack(url, projections, { listings: o.listings });
    const { db, store, projector, simulator } = stack;
    const prefix = `bench-live-workers-${process.pid}`;
    const redis = createRedis(o.redisUrl);
    const workers: RunningServiceProcess[] = [];
    try {
      // an account in each partition, the same seller connected to each
      const ids = new Map<number, string>();
      while (ids.size < partitions) {
        const id = newId();
        if (!ids.has(partitionOf(id, partitions))) ids.set(partitionOf(id, partitions), id);
      }
      const keys = `bench:${randomBytes(32).toString('base64')}`;
      const vault = createVault(db, parseKeyring(keys));
      const connected: Array<{ user_id: string; account_id: string; credentials: string }> = [];
      const lanes: Array<Array<OfferTarget & { account: string }>> = [];
      const logger = pino({ level: 'silent' });
      for (const id of ids.values()) {
        const credentials = `${VAULT_PREFIX}${id}`;
        await vault.put(credentials, 'selling', SELLER);
        await vault.put(credentials, 'ads', ADVERTISER);
        const { user, account, listings } = await syncedSeller(stack, logger, { accountId: id, credentials });
        await liveRepricer(store, user, account);
        connected.push({ user_id: user, account_id: id, credentials });
        lanes.push(listings.map((l) => ({ ...l, account: id })));
      }
      await projector.whenCaughtUp();
      await syncsDueLater(redis, prefix, connected);
      // one account after another, so every stretch of events reaches every partition alike
      const targets = lanes[0]!.flatMap((_, i) => lanes.map((lane) => lane[i]!));
      console.log(
        `  events spread over ${fmt(targets.length)} listings (${fmt(lanes[0]!.length)} one-lane listings of a seller of ${o.listings}, in each account)`,
      );

      const endpoints = simulator.endpoints();
      const env = {
        DATABASE_URL: url,
        REDIS_URL: o.redisUrl,
        REDIS_PREFIX: prefix,
        PORT: '0',
        LOG_LEVEL: 'info',
        SELLING_API_URL: endpoints.sellingApiUrl,
        ADS_API_URL: endpoints.adsApiUrl,
        LWA_TOKEN_URL: endpoints.lwaTokenUrl,
        // no operator credential sets: the accounts' own are in the vault
        SELLING_REFRESH_TOKEN: '',
        ADS_REFRESH_TOKEN: '',
        VENDOR_SELLING_REFRESH_TOKEN: '',
        VENDOR_ADS_REFRESH_TOKEN: '',
        SECRETS_KEYS: keys,
        INGESTION_SECRET: process.env.INGESTION_SECRET ?? 'bench-ingestion-secret',
        LIVE_PARTITIONS: String(partitions),
      };
      const started = performance.now();
      const owners = async () =>
        (await db
          .table('reactors.partitions')
          .where({ name: LIVE_RUNS_CHECKPOINT })
          .whereNotNull('owner')
          .where('expires_at', '>', db.fn.now())
          .select('owner')) as Array<{ owner: string }>;
      // one after another, as a deployment grows: each arrival makes the others hand their surplus over
      for (let n = 1; n <= o.workers; n++) {
        workers.push(await startServiceProcess(env, ['worker'], { options: ['--import', PRELOAD], ipc: true }));
        await eventually(
          async () => {
            const held = await owners();
            const each = new Map<string, number>();
            for (const { owner } of held) each.set(owner, (each.get(owner) ?? 0) + 1);
            return held.length === partitions && each.size === n ? true : undefined;
          },
          `${n} workers to share the partitions`,
          60_000,
        );
      }
      await projector.whenCaughtUp();
      console.log(`  workers started and partitions shared in ${((performance.now() - started) / 1000).toFixed(1)} s`);

      const tail = logTail(store, await store.headPosition());
      /** message ids in the order sent */
      const sent: string[] = [];
      const send = async (i: number) => {
        const t = targets[i % targets.length]!;
        const message_id = randomUUID();
        sent.push(message_id);
        await recordOfferChange(store, t.account, t, message_id);
      };
      const pids = workers.map((w) => w.spawned.child.pid!);
      const statements = async () => sumOf(await Promise.all(workers.map(statementsOf)));

      // sustained: one event every 1000/rate ms, each appended without waiting for the previous
      const total = o.rate * o.seconds;
      const cpu = cpuMeter(pids);
      const windowStart = performance.now();
      const statements0 = await statements();
      const ownStatements = statementCounter();
      const sendingMs = await offer(o.rate, total, 0, send);
      await settled(tail.runs, total, 900_000);
      const sustainedCpu = cpu();
      const windowMs = performance.now() - windowStart;
      const sustainedStatements = (await statements()) - statements0;
      const sustainedOwnStatements = ownStatements();
      const behind = await unsent(db);
      const drainMs = await drained(db, projector, 120_000);
      const sustainedIds = new Set(sent);

      // saturation: a burst recorded as fast as the store takes it
      const burstStart = performance.now();
      await burst(o.burst, total, send);
      await settled(tail.runs, total + o.burst, 300_000);
      const burstMs = performance.now() - burstStart;
      const saturation = o.burst / (burstMs / 1000);
      const behindBurst = await unsent(db);
      const burstDrainMs = await drained(db, projector, 120_000);

      // half the saturation rate: the latency the goal is stated at
      const halfRate = saturation / 2;
      const halfCount = Math.max(1, Math.round(halfRate * o.halfSeconds));
      const beforeHalf = sent.length;
      await offer(halfRate, halfCount, total + o.burst, send);
      await settled(tail.runs, total + o.burst + halfCount, 300_000);
      await drained(db, projector, 120_000);
      await tail.runs();

      // each worker's peak memory and its runner processes' (live runs' and backtests'), read while they run
      const peaks = workers.flatMap((w, i) => {
        const runners = childrenOf(w.spawned.child.pid!).map(peakRssOf);
        return [
          { process: `worker ${i + 1}`, bytes: peakRssOf(w.spawned.child.pid) },
          { process: `worker ${i + 1}'s largest of ${runners.length} runner processes`, bytes: Math.max(...runners) },
        ];
      });
      // none expected: the schedulers' next runs are due later
      const syncs = syncQueue(redis, prefix);
      const syncsRun = sumOf(Object.values(await syncs.getJobCounts('completed', 'failed', 'active')));
      await syncs.close();
      const poison = sumOf(
        workers.map((w) => w.spawned.logs.filter((r) => r.msg === 'poison event recorded and skipped').length),
      );
      const retried = sumOf(
        workers.map((w) => w.spawned.logs.filter((r) => r.msg === 'live run failed; retrying').length),
      );

      // the log's word: each event's run and admitted receipts, and their times
      const log = countLog(tail.events);
      const latencies = (messages: Set<string>) =>
        log.events
          .filter((id) => messages.has(log.messageOf.get(id)!))
          .flatMap((id) => log.loggedLatency(id) ?? [])
          .sort((a, b) => a - b);
      const sustained = latencies(sustainedIds);
      const half = latencies(new Set(sent.slice(beforeHalf)));
      console.log(
        `  sustained: ${fmt(total)} events in ${(sendingMs / 1000).toFixed(1)} s (${(total / (sendingMs / 1000)).toFixed(1)}/s offered), ${fmt(sustained.length)} admitted receipts timed by the log`,
      );
      printLatencies("event → admitted receipt (the log's times)", sustained, '  (goals ≤ 50 / ≤ 250 ms)');
      const machine = sustainedCpu.machineMs;
      console.log(
        `  CPU per event, sustained: ${(machine / total).toFixed(1)} ms for the machine (busy ${((100 * machine) / (windowMs * cpus().length)).toFixed(0)} % of its ${cpus().length} cores' time in the window); this process (appends, projector) ${(sustainedCpu.processMs / total).toFixed(1)} ms, ${((100 * sustainedCpu.processMs) / machine).toFixed(0)} % of the machine's`,
      );
      for (const [i, w] of sustainedCpu.others.entries())
        console.log(
          `    worker ${i + 1} (pid ${pids[i]}): ${(w.processMs / total).toFixed(1)} ms per event, ${((100 * w.processMs) / machine).toFixed(0)} % of the machine's CPU; its runners ${(w.childrenMs / total).toFixed(1)} ms, ${((100 * w.childrenMs) / machine).toFixed(0)} %`,
        );
      const ours = sustainedCpu.processMs + sumOf(sustainedCpu.others.map((w) => w.processMs + w.childrenMs));
      console.log(
        `    these processes together: ${(ours / total).toFixed(1)} ms per event, ${((100 * ours) / machine).toFixed(0)} % of the machine's CPU (the rest: PostgreSQL, Redis, the simulator, and anything else the machine runs)`,
      );
      console.log(
        `  receipts not yet sent when the last run settled: ${fmt(behind)}, all sent ${(drainMs / 1000).toFixed(1)} s later (each worker's dispatcher, as the service runs it)`,
      );
      console.log(
        `  statements per event, sustained: ${(sustainedStatements / total).toFixed(1)} summed over the ${o.workers} worker processes (goal ≤ 12); ${((sustainedStatements + sustainedOwnStatements) / total).toFixed(1)} with this process's (appends, projector), as the one-process phase counts them`,
      );
      console.log(
        `  saturation: ${fmt(o.burst)} events in ${(burstMs / 1000).toFixed(1)} s = ${saturation.toFixed(1)} runs/s`,
      );
      const calls = (await listingSubmissions(endpoints.sellingApiUrl)).filter((c) => c.mode === 'APPLY');
      console.log(
        `  receipts not yet sent when the burst's last run settled: ${fmt(behindBurst)}, all sent ${(burstDrainMs / 1000).toFixed(1)} s later; ${fmt(calls.reduce((n, c) => n + c.patches.length, 0))} patches in ${fmt(calls.length)} patch calls`,
      );
      printLatencies(`half saturation: ${fmt(halfCount)} events at ${halfRate.toFixed(1)}/s, event → receipt`, half);
      printCounts(log, poison, `, retried runs ${retried}; sync jobs the workers ran meanwhile ${syncsRun}`);
      console.log(`  peak RSS: ${peaks.map((p) => `${p.process} ${mib(p.bytes)}`).join(', ')}`);
      figures = {
        phase: `live (${o.workers} worker processes)`,
        machineCpuPerEventMs: machine / total,
        saturation,
        halfRate,
        halfP99Ms: percentile(half, 0.99),
        statementsPerEvent: sustainedStatements / total,
        peakRss: peaks,
      };
    } finally {
      for (const w of workers) {
        w.spawned.child.kill('SIGTERM');
        await Promise.race([w.spawned.exit, new Promise((r) => setTimeout(r, 15_000))]);
        await killIfRunning(w.spawned);
      }
      await deleteKeys(redis, `${prefix}:*`);
      await redis.quit();
      await stack.close();
      console.log(`peak RSS of the simulator process: ${mib(simulator.memory().peakRss)}`);
    }
  });
  return figures!;
}
