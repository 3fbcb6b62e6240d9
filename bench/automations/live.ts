import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { activateAutomation } from '../../src/commands/automation/activation.js';
import { createAutomation } from '../../src/commands/automation/lifecycle.js';
import { recordOfferChange, REPRICE_ONE_PATCH } from '../../test/support/offer-changes.js';
import { listingSubmissions } from '../../test/support/marketplace.js';
import { STORE_LIMITS } from '../../src/domain/automation-store/limits.js';
import { PENDING_STATUSES } from '../../src/domain/mutation/events.js';
import type { EventStore, RecordedEvent } from '../../src/eventstore/port.js';
import { projections } from '../../src/projections/registry.js';
import { printRunnersPeakRss } from './fixtures.js';
import { SELLER, syncedSeller } from './seller.js';
import { startLiveReactor } from '../../src/runtime/live/reactor.js';
import { createSandbox } from '../../src/runtime/sandbox/index.js';
import {
  cpuMeter,
  fmt,
  mib,
  percentile,
  startBenchDispatch,
  startBenchStack,
  statementCounter,
  withDatabase,
} from '../support.js';
import { enqueueDispatch } from '../../src/workers/dispatch/queue.js';

// The `live` phase: marketplace events recorded as ingestion records them, at `rate` per second
// for `seconds`, each an ANY_OFFER_CHANGED naming one of the listings of a seller whose catalog
// has `listings` listings (the demo seller's 40 at `--listings 40`; 2,000 by default: a seller with
// a hundred offer changes a second has a catalog, and 28 usable demo listings meant each listing
// repriced several times a second, its patches queuing behind each other); the live-runs
// reactor (as the worker role runs it, with every projection of the service projecting in this
// process) runs a repricing automation on each, and the dispatch worker sends the patches to the
// simulator as the service does. Prints event → admitted receipt latency (from the
// append of the event to admission handing the receipt to dispatch) at p50 / p99, then runs per
// second at saturation (a burst recorded at once), and counts from the log: events without a run
// (lost) and events with more than one admitted receipt (double admissions).

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the fixture and log payloads are read loosely
type Loose = any;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function everyEvent(store: EventStore): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (let after = null as RecordedEvent['position'] | null; ;) {
    const page = await store.readAll({ after, limit: 5_000 });
    all.push(...page);
    if (page.length < 5_000) return all;
    after = page.at(-1)!.position;
  }
}

export async function livePhase(o: {
  adminUrl: string;
  redisUrl: string;
  rate: number;
  seconds: number;
  burst: number;
  listings: number;
  /** the bare isolate cycle's p50 measured in this run, the unit of the ratios printed */
  bareCycleMs?: number;
}) {
  console.log(
    `live: ANY_OFFER_CHANGED events at ${o.rate}/s for ${o.seconds} s, then a burst of ${o.burst}; reactor, projector, dispatch and runners in this process's care, the marketplace simulator in a process of its own`,
  );
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
      const call = {
        store,
        userId: user,
        accounts: [account],
        at: new Date(),
        correlationId: randomUUID(),
        simulate: false,
      };
      const automation = await createAutomation(call, {
        account,
        stream_type: 'ANY_OFFER_CHANGED',
        title: 'Bench reprice',
        code: REPRICE_ONE_PATCH,
        operation_dependencies: {},
      });
      await activateAutomation(call, automation);

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
      const unsent = async () =>
        Number((await db('rm.mutation_receipts').whereIn('status', PENDING_STATUSES).count({ n: '*' }))[0]!.n);
      const drained = async (withinMs: number) => {
        const deadline = Date.now() + withinMs;
        for (;;) {
          await projector.whenCaughtUp();
          if ((await unsent()) === 0 || Date.now() > deadline) return;
          await sleep(50);
        }
      };
      const settled = async (count: number, withinMs: number) => {
        const deadline = Date.now() + withinMs;
        while (reactor.stats().runs < count && Date.now() < deadline) await sleep(20);
      };

      // sustained: one event every 1000/rate ms, each appended without waiting for the previous
      const total = o.rate * o.seconds;
      const cpu = cpuMeter();
      const statements = statementCounter();
      const started = performance.now();
      const appends: Promise<void>[] = [];
      for (let i = 0; i < total; i++) {
        const due = started + (i * 1000) / o.rate;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        appends.push(send(i));
      }
      await Promise.all(appends);
      const sendingMs = performance.now() - started;
      await settled(total, 900_000);
      const sustainedCpu = cpu();
      const sustainedStatements = statements();
      // what the dispatcher (as the service runs it) had not sent yet when the last run settled
      const behind = await unsent();
      const settledAt = performance.now();
      // and until the rest of each event's work is done: its receipt sent, every projection there
      await drained(120_000);
      const drainedCpu = cpu();
      const drainMs = performance.now() - settledAt;
      const sustainedIds = new Set(sentAt.keys());

      // saturation: a burst recorded as fast as the store takes it
      const before = reactor.stats().runs;
      const burstStart = performance.now();
      for (let i = 0; i < o.burst; i += 50)
        await Promise.all(Array.from({ length: Math.min(50, o.burst - i) }, (_, k) => send(total + i + k)));
      await settled(before + o.burst, 300_000);
      const burstMs = performance.now() - burstStart;
      // the dispatcher at saturation: what the burst's runs left it, and how long it took to send
      const behindBurst = await unsent();
      const burstSettledAt = performance.now();
      await drained(120_000);
      const burstDrainMs = performance.now() - burstSettledAt;
      const stats = reactor.stats();
      await reactor.close();
      await projector.whenCaughtUp();

      // the log's word: each event's run and admitted receipts
      const log = await everyEvent(store);
      const messageOf = new Map<string, string>();
      const runs = new Map<string, number>();
      const statuses = new Map<string, number>();
      let failure: string | undefined;
      const receipts = new Map<string, string[]>();
      for (const e of log) {
        const data = e.data as Loose;
        if (e.type === 'MarketplaceEventReceived') messageOf.set(e.id, data.message_id);
        if (e.type === 'AutomationRunRecorded') {
          runs.set(data.run.event_id, (runs.get(data.run.event_id) ?? 0) + 1);
          for (const a of data.actions as Loose[]) {
            statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
            if (a.status === 'failed') failure ??= a.error_message;
          }
          if (data.error_message) statuses.set('run error', (statuses.get('run error') ?? 0) + 1);
        }
        if (e.type === 'MutationAdmitted' && data.caused_by)
          receipts.set(data.caused_by.event_id, [...(receipts.get(data.caused_by.event_id) ?? []), data.receipt_id]);
      }
      const events = [...messageOf.keys()];
      const lost = events.filter((id) => !runs.has(id)).length;
      const doubleRuns = [...runs.values()].filter((n) => n > 1).length;
      const doubleAdmissions = [...receipts.values()].filter((r) => r.length > 1).length;
      const latencies = events
        .filter((id) => sustainedIds.has(messageOf.get(id)!))
        .flatMap((id) => {
          const receipt = receipts.get(id)?.[0];
          const t = receipt && admittedAt.get(receipt);
          return t ? [t - sentAt.get(messageOf.get(id)!)!] : [];
        })
        .sort((a, b) => a - b);
      const ms = (n: number) => `${n.toFixed(1)} ms`;
      console.log(
        `  sustained: ${fmt(total)} events in ${(sendingMs / 1000).toFixed(1)} s (${(total / (sendingMs / 1000)).toFixed(1)}/s offered), ${fmt(latencies.length)} admitted receipts timed`,
      );
      console.log(
        `  event → admitted receipt                                   p50 ${ms(percentile(latencies, 0.5)).padStart(9)}  p99 ${ms(percentile(latencies, 0.99)).padStart(9)}  max ${ms(latencies.at(-1) ?? NaN)}  (goals ≤ 50 / ≤ 250 ms)`,
      );
      console.log(
        `  CPU per event, sustained: ${(sustainedCpu.machineMs / total).toFixed(1)} ms for the machine (${(sustainedCpu.processMs / total).toFixed(1)} ms of it this process: reactor, projector, dispatch)`,
      );
      console.log(
        `  CPU per event, all its work done (receipts sent, projections caught up): ${(drainedCpu.machineMs / total).toFixed(1)} ms for the machine (${(drainedCpu.processMs / total).toFixed(1)} ms this process)`,
      );
      console.log(
        `  receipts not yet sent when the last run settled: ${fmt(behind)}, all sent ${(drainMs / 1000).toFixed(1)} s later (the dispatcher four at a time, as the service runs it)`,
      );
      const saturation = o.burst / (burstMs / 1000);
      console.log(
        `  statements per event, sustained: ${(sustainedStatements / total).toFixed(1)} (this process's pools: reactor, projector, dispatch; goal ≤ 12)`,
      );
      console.log(
        `  saturation: ${fmt(o.burst)} events in ${(burstMs / 1000).toFixed(1)} s = ${saturation.toFixed(1)} runs/s`,
      );
      const calls = (await listingSubmissions(simulator.endpoints().sellingApiUrl)).filter((c) => c.mode === 'APPLY');
      console.log(
        `  receipts not yet sent when the burst's last run settled: ${fmt(behindBurst)}, all sent ${(burstDrainMs / 1000).toFixed(1)} s later; ${fmt(calls.reduce((n, c) => n + c.patches.length, 0))} patches in ${fmt(calls.length)} patch calls (a listing's queued patches share one)`,
      );
      if (o.bareCycleMs !== undefined) {
        const bare = o.bareCycleMs;
        console.log(
          `  ratios to the bare isolate cycle of this run (p50 ${bare.toFixed(2)} ms): machine CPU per event ÷ cycle ${(sustainedCpu.machineMs / total / bare).toFixed(1)}× (goal ≤ 3×); saturation × cycle ${((saturation * bare) / 1000).toFixed(2)} (2 cores' isolate limit 2.0; goal ≥ 0.6); event → receipt p99 ÷ cycle ${(percentile(latencies, 0.99) / bare).toFixed(0)} at ${o.rate}/s`,
        );
      }
      const p = (k: string) => {
        const list = [...phases[k]!].sort((a, b) => a - b);
        return `${k.replace('_ms', '')} p50 ${ms(percentile(list, 0.5))} p99 ${ms(percentile(list, 0.99))}`;
      };
      console.log(`  inside the reactor, per event: ${['lookup_ms', 'run_ms', 'settle_ms'].map(p).join(', ')}`);
      console.log(`  actions: ${[...statuses].map(([k, n]) => `${k} ${fmt(n)}`).join(', ')}`);
      if (failure) console.log(`  a failed action: ${failure}`);
      console.log(
        `  events ${fmt(events.length)}, runs recorded ${fmt(runs.size)}, lost ${lost}, runs recorded twice ${doubleRuns}, double admissions ${doubleAdmissions}, poison ${stats.poison}, batches ${fmt(stats.batches)}`,
      );
      printRunnersPeakRss(sandbox);
    } finally {
      await dispatch?.close();
      await sandbox.close();
      await stack.close();
      // after its last report, sent as it closes
      console.log(`peak RSS of the simulator process: ${mib(simulator.memory().peakRss)}`);
    }
  });
}
