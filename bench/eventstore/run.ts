// Event store benchmark: our PostgreSQL adapter against Emmett's PostgreSQL event store on
// the same server, each in a fresh database the bench creates and drops.
//
//   npm run build && npm run bench:eventstore [-- --events 120000 --rounds 3] [-- --mode projection]
//
// append mode (default): 8 writers, each on streams of its own, make N/6 single-event
// appends, then 5N/6 events in 10-event appends; then one reader pages through the whole
// log. Each round runs both stores (taking turns at going first) and prints its ratios; the
// last line is the median of each ratio over the rounds. Exits non-zero if our reader does not
// see every event exactly once in any round.
// projection mode: appends N events (default 1,000,000) with our adapter, then times the
// projector catching up a counter projection from position zero.
import { parseArgs } from 'node:util';
import { migrateEventStore } from '../../src/eventstore/schema.js';
import { createDb } from '../../src/infra/db.js';
import { runProjectionBench } from './projection.js';
import { benchEvent, emmettTarget, ourTarget, type BenchTarget } from './targets.js';
import { fmt, printMachine as printMachineOf, runMain, withDatabase as withDatabaseOn } from '../support.js';

const withDatabase = <T>(name: string, fn: (url: string) => Promise<T>) => withDatabaseOn(adminUrl, name, fn);
const printMachine = () => printMachineOf(adminUrl);

const WRITERS = 8;
const STREAMS_PER_WRITER = 50;
const BATCH = 10;
// A reader that finds nothing new for this long has seen all it will (Emmett's skips never
// come); long, because any long transaction on the server holds every xmin-based reader back.
const READER_STALL_MS = 60_000;

const { values: args } = parseArgs({
  options: {
    events: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    mode: { type: 'string', default: 'append' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const adminUrl = args['admin-url']!;
/** Runs `appendsPerWriter` appends of `size` events in each of the 8 writers at once. */
async function appendPhase(target: BenchTarget, appendsPerWriter: number, size: number): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let k = 0; k < appendsPerWriter; k++) {
        const events = Array.from({ length: size }, (_, i) => benchEvent(w, k * size + i));
        await target.append(`bench-w${w}s${k % STREAMS_PER_WRITER}`, events);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

interface ReadOutcome {
  seconds: number;
  reads: number;
  distinct: number;
  duplicates: number;
}

async function readPhase(target: BenchTarget, expected: number): Promise<ReadOutcome> {
  const seen = new Set<string>();
  let reads = 0;
  const started = performance.now();
  let lastProgress = started;
  for (;;) {
    const ids = await target.nextPage();
    if (ids.length > 0) {
      reads += ids.length;
      for (const id of ids) seen.add(id);
      lastProgress = performance.now();
      continue;
    }
    if (seen.size >= expected || performance.now() - lastProgress > READER_STALL_MS) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { seconds: (lastProgress - started) / 1000, reads, distinct: seen.size, duplicates: reads - seen.size };
}

interface StoreResult {
  name: string;
  single: number;
  batched: number;
  read: ReadOutcome;
}

async function benchStore(
  name: string,
  open: (url: string) => Promise<BenchTarget>,
  sizes: { single: number; batched: number },
): Promise<StoreResult> {
  return withDatabase(`bench_es_${Date.now()}_${name}`, async (url) => {
    const target = await open(url);
    try {
      const total = sizes.single + sizes.batched;
      console.log(`[${name}] ${fmt(sizes.single)} single-event appends by ${WRITERS} writers ...`);
      const single = await appendPhase(target, sizes.single / WRITERS, 1);
      console.log(`[${name}] ${fmt(sizes.batched)} events in ${BATCH}-event appends ...`);
      const batched = await appendPhase(target, sizes.batched / BATCH / WRITERS, BATCH);
      console.log(`[${name}] one reader catching up on ${fmt(total)} events ...`);
      const read = await readPhase(target, total);
      return { name, single, batched, read };
    } finally {
      await target.close();
    }
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function appendMode(events: number, rounds: number): Promise<number> {
  // Whole appends per writer in each phase: 1/6 single-event appends, 5/6 in batches of 10.
  const single = Math.max(WRITERS, Math.round(events / 6 / WRITERS) * WRITERS);
  const batched = Math.max(WRITERS * BATCH, Math.round((events - single) / (WRITERS * BATCH)) * WRITERS * BATCH);
  const total = single + batched;
  console.log(
    `event store bench: ${WRITERS} writers on ${STREAMS_PER_WRITER} streams each; ${fmt(single)} single-event appends, then ${fmt(batched)} events in ${BATCH}-event appends, then one reader; ${rounds} round(s)`,
  );
  await printMachine();

  const stores: Record<'ours' | 'emmett', (url: string) => Promise<BenchTarget>> = {
    async ours(url) {
      const db = createDb(url);
      await migrateEventStore(db);
      await db.destroy();
      return ourTarget(url);
    },
    emmett: emmettTarget,
  };
  const rate = (n: number, s: number) => n / s;
  const ratios: Array<{ single: number; batched: number; reader: number }> = [];
  let exact = true;
  for (let round = 1; round <= rounds; round++) {
    console.log(`\nround ${round} of ${rounds}`);
    // taking turns at going first, so a warmer server or a drifting load favours neither
    const order = round % 2 === 1 ? (['ours', 'emmett'] as const) : (['emmett', 'ours'] as const);
    const results = new Map<string, StoreResult>();
    for (const name of order) results.set(name, await benchStore(name, stores[name], { single, batched }));
    const [ours, emmett] = [results.get('ours')!, results.get('emmett')!];

    console.log('store   phase                          events   seconds    events/s');
    for (const r of [ours, emmett]) {
      const rows: [string, number, number][] = [
        [`single-event appends`, single, r.single],
        [`${BATCH}-event appends`, batched, r.batched],
        ['reader catch-up', r.read.reads, r.read.seconds],
      ];
      for (const [phase, n, s] of rows) {
        console.log(
          `${r.name.padEnd(8)}${phase.padEnd(28)}${fmt(n).padStart(9)}${s.toFixed(2).padStart(10)}${fmt(rate(n, s)).padStart(12)}`,
        );
      }
    }
    const ratio = {
      single: emmett.single / ours.single,
      batched: emmett.batched / ours.batched,
      reader: rate(ours.read.reads, ours.read.seconds) / rate(emmett.read.reads, emmett.read.seconds),
    };
    ratios.push(ratio);
    console.log(
      `ours / emmett (events/s): single ${ratio.single.toFixed(2)}, batched ${ratio.batched.toFixed(2)}, reader ${ratio.reader.toFixed(2)}`,
    );
    for (const r of [ours, emmett]) {
      console.log(
        `${r.name} reader saw ${fmt(r.read.distinct)} of ${fmt(total)} events (${fmt(total - r.read.distinct)} missed, ${fmt(r.read.duplicates)} read twice or more)`,
      );
    }
    if (ours.read.distinct !== total || ours.read.duplicates !== 0) {
      console.error(`FAIL: in round ${round} our reader did not see every event exactly once`);
      exact = false;
    }
  }
  const of = (k: 'single' | 'batched' | 'reader') => median(ratios.map((r) => r[k])).toFixed(2);
  console.log(
    `\nmedian over ${rounds} round(s), ours / emmett (events/s): single ${of('single')}, batched ${of('batched')}, reader ${of('reader')} (goal ≥ 1.2 for both appends)`,
  );
  return exact ? 0 : 1;
}

async function main(): Promise<number> {
  const events = args.events === undefined ? undefined : Number(args.events.replaceAll('_', ''));
  if (events !== undefined && !(Number.isInteger(events) && events > 0))
    throw new Error('--events takes a positive integer');
  const rounds = Number(args.rounds);
  if (!(Number.isInteger(rounds) && rounds > 0)) throw new Error('--rounds takes a positive integer');
  if (args.mode === 'append') return appendMode(events ?? 120_000, rounds);
  if (args.mode === 'projection') {
    const n = events ?? 1_000_000;
    console.log(
      `projection bench: ${fmt(n)} events appended by ${WRITERS} writers, then a projector catches up from zero`,
    );
    await printMachine();
    return withDatabase(`bench_es_${Date.now()}_projection`, (url) => runProjectionBench(url, n, WRITERS));
  }
  throw new Error(`--mode is append or projection, not ${args.mode}`);
}

runMain(main);
