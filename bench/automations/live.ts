import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { recordOfferChange } from '../../test/support/offer-changes.js';
import { listingSubmissions } from '../../test/support/marketplace.js';
import { STORE_LIMITS } from '../../src/domain/automation-store/limits.js';
import { projections } from '../../src/projections/registry.js';
import { printRunnersPeakRss } from './fixtures.js';
import { SELLER, syncedSeller } from './seller.js';
import { startLiveReactor } from '../../src/runtime/live/reactor.js';
import { createSandbox } from '../../src/runtime/sandbox/index.js';
import {
  cpuMeter,
  fmt,
  memorySample,
  mib,
  peakRssOf,
  percentile,
  startBenchDispatch,
  startBenchStack,
  withDatabase,
} from '../support.js';
import { statementCounter, statementKinds } from '../statements.js';
import { enqueueDispatch } from '../../src/workers/dispatch/queue.js';
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

// The `live` phase: marketplace events recorded as ingestion records them, at `rate` per second
// for `seconds`, each an ANY_OFFER_CHANGED naming one of the listings of a seller whose catalog
// has `listings` listings (the demo seller's 40 at `--listings 40`; 2,000 by default: a seller with
// a hundred offer changes a second has a catalog, and 28 usable demo listings meant each listing
// repriced several times a second, its patches queuing behind each other); the live-runs
// reactor (as the worker role runs it, with every projection of the service projecting in this
// process) runs a repricing automation on each, and the dispatch worker sends the patches to the
// simulator as the service does. Prints event → admitted receipt latency (from the
// append of the event to admission handing the receipt to dispatch) at p50 / p99, then runs per
// second at saturation (a burst recorded at once), the latency again at half that rate (for
// `halfSeconds`), and counts from the log: events without a run (lost) and events with more than
// one admitted receipt (double admissions).

export interface LiveOptions {
  adminUrl: string;
  redisUrl: string;
  rate: number;
  seconds: number;
  burst: number;
  listings: number;
  /** how long the window at half the saturation rate lasts */
  halfSeconds: number;
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

/** Where a window's machine CPU went, per event: this process, its runner processes, the simulator, the servers, the rest. */
function cpuShares(cpu: ReturnType<ReturnType<typeof cpuMeter>>, events: number): string {
  // the simulator is a child of this process too: its children's time less the simulator's is the runners'
  const simulator = cpu.others[0]?.processMs ?? 0;
  const parts: Array<[string, number]> = [
    ['this process', cpu.processMs],
    ['runner processes', cpu.childrenMs - simulator],
    ['simulator', simulator],
    ['PostgreSQL', cpu.servers.postgresMs],
    ['Redis', cpu.servers.redisMs],
  ];
  parts.push(['the rest of the machine', cpu.machineMs - parts.reduce((sum, [, v]) => sum + v, 0)]);
  return parts.map(([name, v]) => `${name} ${(v / events).toFixed(1)} ms`).join(', ');
}
const sorted = (list: number[]) => list.sort((a, b) => a - b);

/** An event → admitted receipt line: p50, p99 and max of `latencies` (ascending). */
export function printLatencies(label: string, latencies: readonly number[], goals = ''): void {
  console.log(
    `  ${label.padEnd(58)} p50 ${ms(percentile(latencies, 0.5)).padStart(9)}  p99 ${ms(percentile(latencies, 0.99)).padStart(9)}  max ${ms(latencies.at(-1) ?? NaN)}${goals}`,
  );
}

export async function livePhase(o: LiveOptions): Promise<LiveFigures> {
  console.log(
    `live: ANY_OFFER_CHANGED events at ${o.rate}/s for ${o.seconds} s, then a burst of ${o.burst}, then half the saturation rate for ${o.halfSeconds} s; reactor, projector, dispatch and runners in this process's care, the marketplace simulator in a process of its own`,
  );
  let figures: LiveFigures | undefined;
  await withDatabase(o.adminUrl, `bench_live_${Date.now()}`, async (url) => {
    const stack = await startBenchStack(url, projections, { listings: o.listings });
    const { db, store, projector, simulator } = stack;
    const logger = pino({ level: 'silent' });
    // the reactor's own account of where each event's time went
    const phases: Record<string, number[]> = { lookup_ms: [], run_ms: [], settle_ms: [] };
    const reactorLogger = pino(
      { level: 'debug' },
      {
        write(line: string) {
          const r = JSON.parse(line) as Record<string, unknown>;
          if (r.msg === 'live event handled') for (const k of Object.keys(phases)) phases[k]!.push(r[k] as number);
        },
      },
    );
    const sandbox = createSandbox({ storeLimits: STORE_LIMITS });
    let dispatch: Awaited<ReturnType<typeof startBenchDispatch>> | undefined;
    try {
      const { lwa, endpoints, accountId, user, account, listings } = await syncedSeller(stack, logger);
      console.log(
        `  events spread over ${listings.length} listings of a seller of ${o.listings} (one lane each: those whose ASIN is their marketplace's alone)`,
      );
      await liveRepricer(store, user, account);

      // the dispatch worker sends the admitted patches as the service does, so a listing's
      // pending receipts (which its context lists) settle instead of piling up
      dispatch = await startBenchDispatch({
        db,
        store,
        lwa,
        endpoints,
        sellerToken: SELLER,
        redisUrl: o.redisUrl,
        prefix: `bench-live-${process.pid}`,
        concurrency: 4,
      });
      const queue = dispatch.queue;
      const admittedAt = new Map<string, number>();
      const reactor = await startLiveReactor({
        db,
        store,
        sandbox,
        logger: reactorLogger,
        notifier: {
          async queued(ids) {
            const t = performance.now();
            for (const id of ids) admittedAt.set(id, t);
            await enqueueDispatch(queue, ids);
          },
        },
        enqueueWebhookPosts: () => Promise.reject(new Error('the benchmark posts nothing')),
      });
      const sentAt = new Map<string, number>();
      const send = async (i: number) => {
        const message_id = randomUUID();
        sentAt.set(message_id, performance.now());
        await recordOfferChange(store, accountId, listings[i % listings.length]!, message_id);
      };
      const runs = () => reactor.stats().runs;
      const tail = logTail(store, null);

      // sustained: one event every 1000/rate ms, each appended without waiting for the previous
      const total = o.rate * o.seconds;
      const cpu = cpuMeter(simulator.pid === undefined ? [] : [simulator.pid]);
      const statements = statementCounter();
      const kinds = statementKinds();
      const sendingMs = await offer(o.rate, total, 0, send);
      await settled(runs, total, 900_000);
      const sustainedCpu = cpu();
      const sustainedStatements = statements();
      const sustainedKinds = kinds();
      // what the dispatcher (as the service runs it) had not sent yet when the last run settled
      const behind = await unsent(db);
      // and until the rest of each event's work is done: its receipt sent, every projection there
      const drainMs = await drained(db, projector, 120_000);
      const drainedCpu = cpu();
      const sustainedIds = new Set(sentAt.keys());

      // saturation: a burst recorded as fast as the store takes it
      const burstStart = performance.now();
      await burst(o.burst, total, send);
      await settled(runs, total + o.burst, 300_000);
      const burstMs = performance.now() - burstStart;
      const saturation = o.burst / (burstMs / 1000);
      // the dispatcher at saturation: what the burst's runs left it, and how long it took to send
      const behindBurst = await unsent(db);
      const burstDrainMs = await drained(db, projector, 120_000);

      // half the saturation rate: the latency the goal is stated at
      const halfRate = saturation / 2;
      const halfCount = Math.max(1, Math.round(halfRate * o.halfSeconds));
      const beforeHalf = new Set(sentAt.keys());
      await offer(halfRate, halfCount, total + o.burst, send);
      await settled(runs, total + o.burst + halfCount, 300_000);
      await drained(db, projector, 120_000);
      const halfIds = new Set([...sentAt.keys()].filter((id) => !beforeHalf.has(id)));
      const stats = reactor.stats();
      await reactor.close();
      await projector.whenCaughtUp();

      // the log's word: each event's run and admitted receipts
      await tail.runs();
      const log = countLog(tail.events);
      const latencies = (ids: Set<string>) =>
        sorted(
          log.events
            .filter((id) => ids.has(log.messageOf.get(id)!))
            .flatMap((id) => {
              const receipt = log.receipts.get(id)?.[0];
              const t = receipt && admittedAt.get(receipt.id);
              return t ? [t - sentAt.get(log.messageOf.get(id)!)!] : [];
            }),
        );
      const sustained = latencies(sustainedIds);
      const half = latencies(halfIds);
      console.log(
        `  sustained: ${fmt(total)} events in ${(sendingMs / 1000).toFixed(1)} s (${(total / (sendingMs / 1000)).toFixed(1)}/s offered), ${fmt(sustained.length)} admitted receipts timed`,
      );
      printLatencies('event → admitted receipt', sustained, '  (goals ≤ 50 / ≤ 250 ms)');
      console.log(
        `  CPU per event, sustained: ${(sustainedCpu.machineMs / total).toFixed(1)} ms for the machine (${(sustainedCpu.processMs / total).toFixed(1)} ms of it this process: reactor, projector, dispatch)`,
      );
      console.log(`  of which, per event: ${cpuShares(sustainedCpu, total)}`);
      console.log(
        `  CPU per event, all its work done (receipts sent, projections caught up): ${(drainedCpu.machineMs / total).toFixed(1)} ms for the machine (${(drainedCpu.processMs / total).toFixed(1)} ms this process)`,
      );
      console.log(
        `  receipts not yet sent when the last run settled: ${fmt(behind)}, all sent ${(drainMs / 1000).toFixed(1)} s later (the dispatcher four at a time, as the service runs it)`,
      );
      console.log(
        `  statements per event, sustained: ${(sustainedStatements / total).toFixed(1)} (this process's pools: reactor, projector, dispatch; goal ≤ 12)`,
      );
      console.log(`  of which, per event, the most frequent (by their first words):`);
      for (const [kind, n] of sustainedKinds.slice(0, 12))
        console.log(`    ${(n / total).toFixed(2).padStart(6)}  ${kind}`);
      console.log(
        `  saturation: ${fmt(o.burst)} events in ${(burstMs / 1000).toFixed(1)} s = ${saturation.toFixed(1)} runs/s`,
      );
      const calls = (await listingSubmissions(simulator.endpoints().sellingApiUrl)).filter((c) => c.mode === 'APPLY');
      console.log(
        `  receipts not yet sent when the burst's last run settled: ${fmt(behindBurst)}, all sent ${(burstDrainMs / 1000).toFixed(1)} s later; ${fmt(calls.reduce((n, c) => n + c.patches.length, 0))} patches in ${fmt(calls.length)} patch calls (a listing's queued patches share one)`,
      );
      printLatencies(`half saturation: ${fmt(halfCount)} events at ${halfRate.toFixed(1)}/s, event → receipt`, half);
      const p = (k: string) => {
        const list = sorted([...phases[k]!]);
        return `${k.replace('_ms', '')} p50 ${ms(percentile(list, 0.5))} p99 ${ms(percentile(list, 0.99))}`;
      };
      console.log(`  inside the reactor, per event: ${['lookup_ms', 'run_ms', 'settle_ms'].map(p).join(', ')}`);
      printCounts(log, stats.poison, `, batches ${fmt(stats.batches)}`);
      printRunnersPeakRss(sandbox);
      figures = {
        phase: 'live (one process)',
        machineCpuPerEventMs: sustainedCpu.machineMs / total,
        saturation,
        halfRate,
        halfP99Ms: percentile(half, 0.99),
        statementsPerEvent: sustainedStatements / total,
        peakRss: [
          { process: 'this process (reactor, projector, dispatch)', bytes: memorySample().peakRss },
          {
            process: `the largest of ${sandbox.runners().length} runner processes`,
            bytes: Math.max(...sandbox.runners().map((r) => peakRssOf(r.pid))),
          },
        ],
      };
    } finally {
      await dispatch?.close();
      await sandbox.close();
      await stack.close();
      // after its last report, sent as it closes
      console.log(`peak RSS of the simulator process: ${mib(simulator.memory().peakRss)}`);
    }
  });
  return figures!;
}
