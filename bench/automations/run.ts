// Automations: what a run costs, phase by phase.
//
//   npm run build && npm run bench:automations [-- --cycles 500 --runs 300 --phase isolate,sandbox,mcp-dry,live]
//     [--rate 100 --seconds 60 --burst 2000 --half-seconds 10 --listings 2000 --workers 2]
//     [--admin-url postgres://…/postgres --redis-url redis://…]
//
// Phases (each prints its own figures; later phases add MCP dry runs and live runs):
//   isolate  the bare isolated-vm cycle: create an isolate and a context, run one line, dispose
//   sandbox  a run through createSandbox (runner processes) for a trivial and a repricing handler,
//            the same run in this process and in a worker thread for comparison, the ratio to the
//            bare cycle (goal ≤ 2×), runner start-up, and runs per second with every runner busy and
//            the CPU each took (what a live event cannot cost less than)
//   mcp-dry  run_automation dry runs through MCP over HTTP on the synced demo seller, trivial and
//            repricing handlers (goals p50 ≤ 25 ms, p99 ≤ 100 ms), next to an MCP ping
//   live     the live-runs reactor on a fresh database: event → admitted receipt latency at a
//            sustained rate, runs per second at saturation, the latency at half that rate, lost
//            events and double admissions, the events spread over a seller of `--listings`
//            listings (live.ts); with `--workers N`, in N worker processes of the service's own
//            instead of this one (live-workers.ts)
// Last, the goals: each figure a goal is stated for, as the ratio to its floor measured in the
// same run (the bare isolate cycle, the MCP ping), with the floor beside it, and met or not.
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { RUN_LIMITS } from '../../src/runtime/contracts/limits.js';
import { createSandbox, type RunInput, type RunOutput } from '../../src/runtime/sandbox/index.js';
import { runInIsolate } from '../../src/runtime/sandbox/isolate-run.js';
import type { RunJob } from '../../src/runtime/sandbox/types.js';
import { cpuMeter, mib, percentile, printMachine } from '../support.js';
import { printRunnersPeakRss } from './fixtures.js';
import { bareCycle, input, REPRICING, TRIVIAL } from './fixtures.js';
import { mcpDryPhase } from './mcp-dry.js';
import { livePhase } from './live.js';
import { liveWorkersPhase } from './live-workers.js';
import type { LiveFigures } from './live-drive.js';

const { values: args } = parseArgs({
  options: {
    cycles: { type: 'string', default: '500' },
    runs: { type: 'string', default: '300' },
    phase: { type: 'string', default: 'isolate,sandbox,mcp-dry,live' },
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '60' },
    burst: { type: 'string', default: '2000' },
    'half-seconds': { type: 'string', default: '10' },
    workers: { type: 'string', default: '0' },
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
const workers = Number(args.workers);
if (!Number.isInteger(workers) || workers < 0)
  throw new Error(`--workers: '${args.workers}' is not a whole number of worker processes (0: this process)`);

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

/** The sandbox's p50 for each handler, next to the bare cycle's taken in turns with it. */
type SandboxFigures = Array<{ handler: string; sandbox: Stats; cycle: Stats }>;
/** CPU per repricing run with the runners kept busy, this process's and its runners' (the sandbox phase's) */
let runCpuMs: number | undefined;

async function sandboxPhase(bare: Stats | undefined): Promise<SandboxFigures> {
  console.log(`sandbox: one run at a time, ${runs} runs each (host-measured round trip)`);
  const sandbox = createSandbox({ runners: 2 });
  const worker = workerRunner();
  const figures: SandboxFigures = [];
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
      figures.push({ handler: name, sandbox: pooled!, cycle: cycle! });
    }
    const [startups] = await timed(10, async () => {
      const one = createSandbox({ runners: 1 });
      check(await one.run(input(TRIVIAL)));
      await one.close();
    });
    line('runner start-up: createSandbox + first trivial run + close', startups!);
    const total = runs * 2;
    const started = performance.now();
    const cpu = cpuMeter();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < total / 8; i++) check(await sandbox.run(input(REPRICING)));
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`  repricing runs per second, 2 runners kept busy: ${(total / seconds).toFixed(0)} (${total} runs)`);
    // what a live event cannot cost less than: its run, a fresh isolate included, in both processes
    // (their own CPU, not the machine's: other work on the machine does not count)
    const used = cpu();
    runCpuMs = (used.processMs + used.childrenMs) / total;
    console.log(
      `  CPU per repricing run, runners kept busy (this process and its runners): ${ms(runCpuMs)}${bare ? ` = ${(runCpuMs / bare.p50).toFixed(1)}× the bare cycle (${ms(bare.p50)})` : ''}`,
    );
    printRunnersPeakRss(sandbox);
  } finally {
    await worker.close();
    await sandbox.close();
  }
  return figures;
}

await printMachine();
const bare = phases.has('isolate') ? await barePhase() : undefined;
const sandboxed = phases.has('sandbox') ? await sandboxPhase(bare) : [];
let mcp: { ping: Stats; dry: Array<[string, Stats]> } | undefined;
if (phases.has('mcp-dry')) {
  const [ping, trivial, repricing] = await mcpDryPhase(runs, args['admin-url']!, timed);
  line('floor: MCP ping', ping!);
  line('run_automation, trivial handler (canned sample, demo listing)', trivial!);
  line('run_automation, repricing handler (canned sample, demo listing)', repricing!);
  mcp = {
    ping: ping!,
    dry: [
      ['trivial', trivial!],
      ['repricing', repricing!],
    ],
  };
}
let live: LiveFigures | undefined;
if (phases.has('live')) {
  const options = {
    adminUrl: args['admin-url']!,
    redisUrl: args['redis-url']!,
    rate: Number(args.rate),
    seconds: Number(args.seconds),
    burst: Number(args.burst),
    halfSeconds: Number(args['half-seconds']),
    listings,
  };
  live = workers > 0 ? await liveWorkersPhase({ ...options, workers }) : await livePhase(options);
}
printGoals();

/** Each goal's figure from this run, the floor it is divided by beside it, and whether it is met. */
function printGoals(): void {
  const rows: Array<[string, string, string, boolean | undefined]> = [];
  const x = (n: number, digits = 1) => `${n.toFixed(digits)}×`;
  const floor = bare && `bare isolate cycle p50 ${ms(bare.p50)}`;
  for (const { handler, sandbox, cycle } of sandboxed)
    rows.push([
      `sandbox run p50 ÷ bare cycle p50 (taken in turns), ${handler}`,
      `${x(sandbox.p50 / cycle.p50, 2)} (${ms(sandbox.p50)} ÷ ${ms(cycle.p50)})`,
      '≤ 2×',
      sandbox.p50 <= 2 * cycle.p50,
    ]);
  for (const [handler, s] of mcp?.dry ?? []) {
    rows.push([
      `MCP dry run p50 / p99, ${handler}`,
      `${ms(s.p50)} / ${ms(s.p99)}`,
      '≤ 25 / ≤ 100 ms',
      s.p50 <= 25 && s.p99 <= 100,
    ]);
    rows.push([
      `MCP dry run p50 ÷ MCP ping p50, ${handler}`,
      `${x(s.p50 / mcp!.ping.p50)} (${ms(s.p50)} ÷ ${ms(mcp!.ping.p50)})`,
      '≤ 5×',
      s.p50 <= 5 * mcp!.ping.p50,
    ]);
  }
  if (bare && runCpuMs !== undefined)
    rows.push([
      'CPU per sandbox run, runners kept busy ÷ bare cycle (a live event costs at least this)',
      `${x(runCpuMs / bare.p50)} (${ms(runCpuMs)} ÷ ${ms(bare.p50)})`,
      'no goal stated',
      undefined,
    ]);
  if (live) {
    const of = (what: string) => `${what}, ${live!.phase}`;
    if (bare) {
      const cycle = bare.p50;
      rows.push([
        of('machine CPU per live event ÷ bare cycle'),
        `${x(live.machineCpuPerEventMs / cycle)} (${ms(live.machineCpuPerEventMs)} ÷ ${ms(cycle)})`,
        '≤ 3×',
        live.machineCpuPerEventMs <= 3 * cycle,
      ]);
      rows.push([
        of('saturation × bare cycle'),
        `${((live.saturation * cycle) / 1000).toFixed(2)} (${live.saturation.toFixed(1)} runs/s × ${ms(cycle)})`,
        '≥ 0.6',
        (live.saturation * cycle) / 1000 >= 0.6,
      ]);
      rows.push([
        of(`event → receipt p99 at half saturation (${live.halfRate.toFixed(1)}/s) ÷ bare cycle`),
        `${(live.halfP99Ms / cycle).toFixed(0)} (${ms(live.halfP99Ms)} ÷ ${ms(cycle)})`,
        '≤ 40',
        live.halfP99Ms <= 40 * cycle,
      ]);
    } else rows.push([of('ratios to the bare cycle'), 'not measured (no isolate phase)', '', undefined]);
    rows.push([of('statements per event'), live.statementsPerEvent.toFixed(1), '≤ 12', live.statementsPerEvent <= 12]);
    for (const p of live.peakRss) rows.push([of(`peak RSS, ${p.process}`), mib(p.bytes), 'no goal stated', undefined]);
  }
  if (rows.length === 0) return;
  console.log(
    `goals (every figure from this run${floor ? `; the floor: ${floor}` : ''}${mcp ? `, MCP ping p50 ${ms(mcp.ping.p50)}` : ''}):`,
  );
  for (const [label, figure, goal, met] of rows)
    console.log(
      `  ${label.padEnd(90)} ${figure.padEnd(34)} ${goal.padEnd(16)} ${met === undefined ? '' : met ? 'met' : 'unmet'}`,
    );
}
