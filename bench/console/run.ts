// Console benchmark: the Overview's server time on a synced simulator profile (by default the
// bench profile: 100,000 listings, a year of orders), beside the MCP ping measured in the same
// run, the two taking turns so the machine's load meets them alike:
// - GET / (the demo seller's Overview, as a browser asks for it) over HTTP on loopback;
// - the MCP ping: server/discover on /demo/mcp, the cheapest round trip of revision 2026-07-28
//   (ping is gone there), the floor every tool call pays;
// - the Overview read and drawn in process (readOverview, overviewBody, page), without HTTP.
// The goal: the Overview's p50 at most 20× the ping's.
// bench/profile.ts: the simulator on its own process, the floor of its sync, a progress line each minute.
//
//   npm run build && npm run bench:console [-- --listings 100000 --order-lines 1000000] [-- --calls 100] [-- --keep NAME]
//
// Defaults to the bench profile; `--listings 2000 --order-lines 20000` checks it in a few minutes.
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { DEMO_USER_ID } from '../../src/domain/shared/ids.js';
import type { ToolContext } from '../../src/mcp/tool.js';
import { overviewBody, readOverview } from '../../src/web/console/overview.js';
import { page } from '../../src/web/page.js';
import { connect, ping, timeSideBySide, WARM_UP, type Times } from '../mcp/round-trips.js';
import { profileOptions, scaleOf, withSyncedProfile } from '../profile.js';
import { fmt, percentile, printMachine, runMain } from '../support.js';

const { values: args } = parseArgs({
  options: {
    ...profileOptions(),
    calls: { type: 'string', default: '100' },
  },
});
const adminUrl = args['admin-url']!;
const scale = scaleOf(args);
const calls = Number(args.calls);
const REVISION = '2026-07-28';

const cells = (t: Times) => `p50 ${t.p50.toFixed(2).padStart(8)} ms   p99 ${t.p99.toFixed(2).padStart(8)} ms`;

/** p50 and p99 of `calls` runs of `run` after WARM_UP unmeasured ones */
async function timeAlone(run: () => Promise<unknown>): Promise<Times> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + calls; i++) {
    const t = performance.now();
    await run();
    if (i >= WARM_UP) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function main(): Promise<void> {
  await printMachine(adminUrl);
  console.log(`profile: ${fmt(scale.listings)} listings, ${fmt(scale.orderLines)} order lines over a year`);
  await withSyncedProfile({ adminUrl, scale, keep: args.keep }, async ({ service }) => {
    const db = service.db;
    const held = (
      await db.raw(`select (select count(*) from rm.listings)::int as listings,
      (select count(*) from rm.order_lines)::int as lines`)
    ).rows[0] as { listings: number; lines: number };
    console.log(`the seller's read models: ${fmt(held.listings)} listing rows, ${fmt(held.lines)} order lines`);
    const overview = async () => {
      const res = await fetch(`${service.url}/`, { headers: { accept: 'text/html' } });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('<h2>Sales</h2>')) throw new Error(`GET / answered ${res.status}`);
      return text;
    };
    const sales = ((await overview()).match(/<svg\s/g) ?? []).length;
    console.log(`the Overview draws ${sales} charts`);
    const client = await connect(`${service.url}/demo/mcp`, REVISION);
    try {
      console.log(`each figure over ${calls} calls after ${WARM_UP} unmeasured; the first two taking turns`);
      const [page50, ping50] = await timeSideBySide(overview, () => ping(client, REVISION), calls);
      const ctx: ToolContext = {
        db,
        userId: DEMO_USER_ID,
        endpoint: 'demo',
        logger: pino({ level: 'silent' }),
        requestId: 'bench-console',
        now: () => new Date(),
      };
      const inProcess = await timeAlone(async () =>
        page({ title: 'Overview', wide: true }, overviewBody(await readOverview(ctx), '/activity')),
      );
      for (const [label, t] of [
        ['GET / (the Overview over HTTP)', page50],
        [`MCP ping (server/discover, ${REVISION})`, ping50],
        ['the Overview read and drawn in process', inProcess],
      ] as const)
        console.log(`  ${label.padEnd(42)} ${cells(t)}`);
      const ratio = page50.p50 / ping50.p50;
      console.log(`Overview p50 ÷ ping p50: ${ratio.toFixed(1)}× (goal ≤ 20×: ${ratio <= 20 ? 'met' : 'not met'})`);
    } finally {
      await client.close();
    }
  });
}
runMain(main);
