// Automations: what a run costs, phase by phase.
//
//   npm run build && npm run bench:automations [-- --cycles 500 --runs 300 --phase isolate,sandbox,mcp-dry,live]
//     [--rate 100 --seconds 60 --burst 2000 --listings 2000 --admin-url postgres://…/postgres --redis-url redis://…]
//
// Phases (each prints its own figures; later phases add MCP dry runs and live runs):
//   isolate  the bare isolated-vm cycle: create an isolate and a context, run one line, dispose
//   sandbox  a run through createSandbox (runner processes) for a trivial and a repricing handler,
//            the same run in this process and in a worker thread for comparison, the ratio to the
//            bare cycle (goal ≤ 2×), runner start-up, and runs per second with every runner busy
//   mcp-dry  run_automation dry runs through MCP over HTTP on the synced demo seller, trivial and
//            repricing handlers (goals p50 ≤ 25 ms, p99 ≤ 100 ms), next to an MCP ping
//   live     the live-runs reactor on a fresh database: event → admitted receipt latency at a
//            sustained rate, runs per second at saturation, lost events and double admissions,
//            the events spread over a seller of `--listings` listings (live.ts)
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { RUN_LIMITS } from '../../src/runtime/contracts/limits.js';
import { createSandbox, type RunInput, type RunOutput } from '../../src/runtime/sandbox/index.js';
import { runInIsolate } from '../../src/runtime/sandbox/isolate-run.js';
import type { RunJob } from '../../src/runtime/sandbox/types.js';
import { percentile, printMachine } from '../support.js';
import { printRunnersPeakRss } from './fixtures.js';
import { bareCycle, input, REPRICING, TRIVIAL } from './fixtures.js';
import { mcpDryPhase } from './mcp-dry.js';
import { livePhase } from './live.js';

const { values: args } = parseArgs({
  options: {
    cycles: { type: 'string', default: '500' },
    runs: { type: 'string', default: '300' },
    phase: { type: 'string', default: 'isolate,sandbox,mcp-dry,live' },
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '60' },
    burst: { type: 'string', default: '2000' },
    listings: { type: 'string', default: '2000' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
    'redis-url': { type: 'string', default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
  },
});
const cycles = Number(args.cycles);
const runs = Number(args.runs);
const phases = new Set(args.phase!.split(','));
const listings = Number(args.listings);
if (!Number.isInteger(listings) || listings < 1)
  throw new Error(`--listings: '${args.listings}' is not a whole number of listings (at least 1)`);

type Stats = { p50: number; p99: number };
const ms = (n: number) => `${n.toFixed(2)} ms`;
const line = (label: string, s: Stats, extra = '') =>
  console.log(`  ${label.padEnd(58)} p50 ${ms(s.p50).padStart(9)}  p99 ${ms(s.p99).padStart(9)}${extra}`);

/** Times each variant `n` times, taking turns, so a change in the machine's load hits them alike. */
async function timed(n: number, ...variants: Array<() => Promise<unknown>>): Promise<Stats[]> {
  for (const once of variants) for (let i = 0; i < Math.min(20, n); i++) await once(); // warm-up
  const times = variants.map((): number[] => []);
  for (let i = 0; i < n; i++)
    for (const [v, once] of variants.entries()) {
      const t = performance.now();
      await once();
      times[v]!.push(performance.now() - t);
    }
  return times.map((list) => {
    list.sort((a, b) => a - b);
    return { p50: percentile(list, 0.5), p99: percentile(list, 0.99) };
  });
}

const job = (i: RunInput): RunJob => ({
  code: i.code,
  eventJson: JSON.stringify(i.event),
  contextJson: JSON.stringify(i.context),
  storeJson: JSON.stringify(i.store),
  webhooks: [...i.webhooks],
  deadlineMs: RUN_LIMITS.runTimeMs,
  memoryMb: RUN_LIMITS.memoryMb,
});

const check = (out: RunOutput): RunOutput => {
  if (!out.ok) throw new Error(`the benchmark's handler failed: ${out.error.message}`);
  return out;
};

async function barePhase(): Promise<Stats> {
  console.log(
    `isolate: bare cycle (new Isolate ${RUN_LIMITS.memoryMb} MB + context + one line + dispose), ${cycles} cycles`,
  );
  const [bare] = await timed(cycles, bareCycle);
  line('bare isolate cycle', bare!);
  return bare!;
}

function workerRunner() {
  const worker = new Worker(new URL('./worker-runner.js', import.meta.url));
  let id = 0;
  const pending = new Map<number, (o: RunOutput) => void>();
  worker.on('message', (m: { id: number; output: RunOutput }) => pending.get(m.id)?.(m.output));
  return {
    run: (j: RunJob) =>
      new Promise<RunOutput>((resolve) => (pending.set(++id, resolve), worker.postMessage({ id, job: j }))),
    close: () => worker.terminate(),
  };
}

async function sandboxPhase(bare: Stats | undefined): Promise<void> {
  console.log(`sandbox: one run at a time, ${runs} runs each (host-measured round trip)`);
  const sandbox = createSandbox({ runners: 2 });
  const worker = workerRunner();
  try {
    for (const [name, code] of [
      ['trivial', TRIVIAL],
      ['repricing', REPRICING],
    ] as const) {
      const given = input(code);
      const [cycle, inProcess, threaded, pooled] = await timed(
        runs,
        bareCycle,
        async () => check(await runInIsolate(job(given))),
        async () => check(await worker.run(job(given))),
        async () => check(await sandbox.run(given)),
      );
      line(`${name}: bare isolate cycle (taking turns with these)`, cycle!);
      line(`${name}: in this process (runInIsolate, no boundary)`, inProcess!);
      line(`${name}: worker thread round trip`, threaded!);
      line(`${name}: createSandbox, runner process round trip`, pooled!);
      const ratios = [bare, cycle].flatMap((b) => (b ? [(pooled!.p50 / b.p50).toFixed(2)] : []));
      console.log(`  ${name}: sandbox p50 / bare cycle p50 = ${ratios.join('× (alone), ')}× (taking turns); goal ≤ 2×`);
    }
    const [startups] = await timed(10, async () => {
      const one = createSandbox({ runners: 1 });
      check(await one.run(input(TRIVIAL)));
      await one.close();
    });
    line('runner start-up: createSandbox + first trivial run + close', startups!);
    const total = runs * 2;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < total / 8; i++) check(await sandbox.run(input(REPRICING)));
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`  repricing runs per second, 2 runners kept busy: ${(total / seconds).toFixed(0)} (${total} runs)`);
    printRunnersPeakRss(sandbox);
  } finally {
    await worker.close();
    await sandbox.close();
  }
}

await printMachine();
const bare = phases.has('isolate') ? await barePhase() : undefined;
if (phases.has('sandbox')) await sandboxPhase(bare);
if (phases.has('mcp-dry')) {
  const [ping, trivial, repricing] = await mcpDryPhase(runs, args['admin-url']!, timed);
  line('floor: MCP ping', ping!);
  line('run_automation, trivial handler (canned sample, demo listing)', trivial!);
  line('run_automation, repricing handler (canned sample, demo listing)', repricing!);
  const met = [trivial!, repricing!].every((s) => s.p50 <= 25 && s.p99 <= 100);
  console.log(`  goals p50 ≤ 25 ms, p99 ≤ 100 ms: ${met ? 'met' : 'not met'}`);
  const ratio = (s: Stats) => `${(s.p50 / ping!.p50).toFixed(1)}×`;
  console.log(`  dry run p50 ÷ MCP ping p50: trivial ${ratio(trivial!)}, repricing ${ratio(repricing!)} (goal ≤ 5×)`);
}
if (phases.has('live'))
  await livePhase({
    adminUrl: args['admin-url']!,
    redisUrl: args['redis-url']!,
    rate: Number(args.rate),
    seconds: Number(args.seconds),
    burst: Number(args.burst),
    listings,
    bareCycleMs: bare?.p50,
  });
