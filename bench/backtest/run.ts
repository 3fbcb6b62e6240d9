// Backtests: how fast an automation is replayed over a seller's recorded offer events.
//
//   npm run build && npm run bench:backtest [-- --listings 2000 --events 60000 --cycles 300 --concurrency 8]
//
// A fresh database with a seller of `--listings` listings (synced from the simulator, its listings
// pages in the log) and `--events` ANY_OFFER_CHANGED messages spread over the last 30 days and over
// the listings whose ASIN is their marketplace's alone, recorded as ingestion records them. One
// backtest of a repricer over the 30 days (runtime/backtest/replay.ts, two sandbox runners, as the
// worker role runs it); then, in the same run, the bare isolate cycle (bench/automations). Prints
// runs/s, the bare cycle p50, their product (goal ≥ 0.66: a third of two cores' isolate limit) and
// the peak RSS of this process and of the runners.
import { parseArgs } from 'node:util';
import pino from 'pino';
import { recordMarketplaceEvents } from '../../src/commands/event/record.js';
import { STORE_LIMITS } from '../../src/domain/automation-store/limits.js';
import { projections } from '../../src/projections/registry.js';
import { runBacktest } from '../../src/runtime/backtest/replay.js';
import { eventFixture } from '../../src/runtime/contracts/index.js';
import { createSandbox } from '../../src/runtime/sandbox/index.js';
import { bareCycle, printRunnersPeakRss } from '../automations/fixtures.js';
import { syncedSeller } from '../automations/seller.js';
import { REPRICE_ONE_PATCH } from '../../test/support/offer-changes.js';
import { fmt, percentile, printMachine, startBenchStack, withDatabase } from '../support.js';

const { values: args } = parseArgs({
  options: {
    listings: { type: 'string', default: '2000' },
    events: { type: 'string', default: '60000' },
    cycles: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '8' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const listingCount = Number(args.listings);
const eventCount = Number(args.events);
const DAY = 86_400_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the fixture is edited loosely
type Loose = any;

await printMachine(args['admin-url']);
await withDatabase(args['admin-url']!, `bench_backtest_${Date.now()}`, async (url) => {
  const stack = await startBenchStack(url, projections, { listings: listingCount });
  const { db, store } = stack;
  const logger = pino({ level: 'silent' });
  const sandbox = createSandbox({ storeLimits: STORE_LIMITS, runners: 2 });
  try {
    const now = Date.now();
    // the listings were observed before the window began
    const { accountId, account, listings } = await syncedSeller(stack, logger, {
      observedAt: () => new Date(now - 31 * DAY),
    });
    const since = new Date(now - 30 * DAY);
    const recordStarted = performance.now();
    for (let i = 0; i < eventCount; i += 1_000) {
      const batch = Array.from({ length: Math.min(1_000, eventCount - i) }, (_, j) => {
        const n = i + j;
        const l = listings[n % listings.length]!;
        const at = new Date(since.getTime() + Math.floor(((n + 0.5) / eventCount) * 30 * DAY)).toISOString();
        const payload = structuredClone(eventFixture('ANY_OFFER_CHANGED')) as Loose;
        const note = payload.Payload.AnyOfferChangedNotification;
        payload.EventTime = at;
        note.SellerId = account.selling!.provider_id;
        Object.assign(note.OfferChangeTrigger, {
          MarketplaceId: l.marketplace_id,
          ASIN: l.asin,
          TimeOfOfferChange: at,
        });
        note.Summary.LowestPrices[0].ListingPrice.Amount = 20 + (n % 500) / 100;
        return {
          account_id: accountId,
          message_id: `bench-${n}`,
          stream_type: 'ANY_OFFER_CHANGED',
          source: 'selling' as const,
          occurred_at: at,
          received_at: new Date().toISOString(),
          payload,
        };
      });
      await recordMarketplaceEvents(store, accountId, batch);
    }
    console.log(
      `backtest: a repricer over ${fmt(eventCount)} offer events in 30 days, spread over ${fmt(listings.length)} listings of a seller of ${fmt(listingCount)} (recorded in ${((performance.now() - recordStarted) / 1000).toFixed(1)} s); 2 sandbox runners, ${args.concurrency} events side by side`,
    );
    const result = await runBacktest(
      { db, store, sandbox, logger, concurrency: Number(args.concurrency) },
      {
        automation: { id: null, version: 1, code: REPRICE_ONE_PATCH },
        account,
        streamType: 'ANY_OFFER_CHANGED',
        since,
        until: new Date(now + 1),
      },
    );
    const runsPerSecond = result.totals.runs / (result.elapsed_ms / 1000);
    console.log(
      `  ${fmt(result.totals.runs)} runs in ${(result.elapsed_ms / 1000).toFixed(1)} s (history read included): ${runsPerSecond.toFixed(1)} runs/s; ${fmt(result.totals.changes)} would-be changes, ${fmt(result.totals.validation_failures)} validation failures, ${fmt(result.totals.execution_errors)} execution errors`,
    );
    const cycles = Number(args.cycles);
    for (let i = 0; i < 20; i++) await bareCycle();
    const times: number[] = [];
    for (let i = 0; i < cycles; i++) {
      const t = performance.now();
      await bareCycle();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const bare = percentile(times, 0.5);
    console.log(`  bare isolate cycle p50 (${cycles} cycles, same run): ${bare.toFixed(2)} ms`);
    console.log(`  runs/s × bare cycle = ${((runsPerSecond * bare) / 1000).toFixed(2)} (goal ≥ 0.66)`);
    printRunnersPeakRss(sandbox);
  } finally {
    await sandbox.close();
    await stack.close();
  }
});
