// query_data benchmark: syncs a whole simulator profile through the service's real path
// (clients, sync jobs, event log, projector), then times two analyst queries through MCP
// over HTTP. The simulator runs on a thread of its own, as a remote marketplace would: its
// work is not the service's. A progress line each minute says how far the sync got.
//
//   npm run build && npm run bench:query_data [-- --listings 100000 --order-lines 1000000] [-- --runs 5]
//
// Defaults to the bench profile of issue 3 (100,000 listings, 1,000,000 order lines).
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { loadConfig } from '../../src/infra/config.js';
import { createRedis, deleteKeys } from '../../src/infra/redis.js';
import { Worker } from 'node:worker_threads';
import { BENCH_SCALE } from '../../src/marketplace/simulator/index.js';
import { DEMO_ACCOUNT_ID, startService } from '../../src/service.js';
import { syncQueue } from '../../src/workers/sync/queue.js';
import { syncJobs } from '../../src/workers/sync/registry.js';
import { fmt, printMachine, withDatabase } from '../support.js';

const { values: args } = parseArgs({
  options: {
    listings: { type: 'string', default: String(BENCH_SCALE.listings) },
    'order-lines': { type: 'string', default: String(BENCH_SCALE.orderLines) },
    runs: { type: 'string', default: '5' },
    'admin-url': { type: 'string', default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const adminUrl = args['admin-url']!;
const scale = { listings: Number(args.listings), orderLines: Number(args['order-lines']) };
const runs = Number(args.runs);

const QUERIES = {
  'monthly revenue by marketplace': `
    select date_trunc('month', sold_at) as month, marketplace_id, currency, sum(price) as revenue, sum(quantity) as units
    from v_sales_lines group by 1, 2, 3 order by 1, 2`,
  'top 100 SKUs by units': `
    select sku, marketplace_id, currency, sum(quantity) as units, sum(price) as revenue
    from v_sales_lines group by 1, 2, 3 order by units desc, sku limit 100`,
};

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  await printMachine(adminUrl);
  console.log(`profile: ${fmt(scale.listings)} listings, ${fmt(scale.orderLines)} order lines over a year`);
  const simulator = new Worker(new URL('./simulator-thread.js', import.meta.url), { workerData: { seed: 42, scale } });
  const { base } = await new Promise<{ base: string }>((resolve, reject) => simulator.once('message', resolve).once('error', reject));
  const name = `bench_qd_${Date.now()}`;
  try {
    await withDatabase(adminUrl, name, async (databaseUrl) => {
      const config = loadConfig({
        ...process.env,
        DATABASE_URL: databaseUrl,
        REDIS_PREFIX: name,
        PORT: '0',
        LOG_LEVEL: 'silent',
        PROJECTOR_POLL_MS: '200',
        SELLING_API_URL: base,
        ADS_API_URL: base,
        LWA_TOKEN_URL: `${base}/auth/o2/token`,
      });
      const started = performance.now();
      const service = await startService(config, new Set(['api', 'projector', 'worker'] as const), pino({ level: 'silent' }));
      const redis = createRedis(config.REDIS_URL);
      const queue = syncQueue(redis, config.REDIS_PREFIX);
      try {
        // done when every sync of the demo seller (the profile) has completed once and nothing
        // is running or waiting: the demo vendor's seller syncs finish at once, so completions
        // are counted per account (retries and next runs are delayed jobs, not counted)
        const names = new Set(syncJobs.map((j) => j.name));
        let reported = performance.now();
        for (;;) {
          const completed = await queue.getJobs(['completed'], 0, 10_000);
          const done = new Set(completed.filter((j) => j.data.account_id === DEMO_ACCOUNT_ID).map((j) => j.name));
          const counts = await queue.getJobCounts('active', 'waiting', 'prioritized');
          const busy = (counts.active ?? 0) + (counts.waiting ?? 0) + (counts.prioritized ?? 0);
          if ([...names].every((n) => done.has(n)) && busy === 0) break;
          if (performance.now() - reported >= 60_000) {
            reported = performance.now();
            const active = (await queue.getJobs(['active'])).map((j) => j.name);
            const progress = (await service.db.raw(`select (select count(*) from events)::int as events,
              (select count(*) from rm.order_lines)::int as lines, (select count(*) from rm.listings)::int as listings`)).rows[0] as Record<string, number>;
            console.log(`  ${seconds(reported - started)} s: done ${[...names].filter((n) => done.has(n)).join(', ') || 'nothing yet'}; running ${active.join(', ')}; ${fmt(progress.events!)} events, ${fmt(progress.lines!)} order lines and ${fmt(progress.listings!)} listing rows projected`);
          }
          await new Promise((r) => setTimeout(r, 1000));
        }
        const synced = performance.now();
        await service.projector!.whenCaughtUp();
        const projected = performance.now();
        const events = (await service.db.raw('select count(*)::int as n from events')).rows[0].n as number;
        console.log(`sync of the whole profile: ${seconds(synced - started)} s; projection caught up ${seconds(projected - synced)} s later; ${fmt(events)} events`);

        const client = new Client({ name: 'bench', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/demo/mcp`)));
        const count = await client.callTool({ name: 'query_data', arguments: { sql: 'select count(*) as lines from v_sales_lines' } });
        console.log(`v_sales_lines rows: ${JSON.stringify((count.structuredContent as { rows: unknown[][] }).rows[0])}`);
        for (const [label, sql] of Object.entries(QUERIES)) {
          const times: number[] = [];
          const refusals: string[] = [];
          let rows = 0;
          for (let i = 0; i < runs; i++) {
            const t = performance.now();
            const res = await client.callTool({ name: 'query_data', arguments: { sql } });
            // a refusal (the 3 s statement timeout) is a figure too: say so and go on
            if (res.isError) refusals.push((res.structuredContent as { code?: string }).code ?? 'error');
            else times.push(performance.now() - t);
            if (!res.isError) rows = (res.structuredContent as { row_count: number }).row_count;
          }
          const refused = refusals.length ? `; refused in ${refusals.length} of ${runs} runs (${[...new Set(refusals)].join(', ')})` : '';
          const timing = times.length ? `median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms over ${times.length} answered runs` : 'no run answered';
          console.log(`${label}: ${timing} through MCP over HTTP (${rows} rows)${refused}`);
        }
        await client.close();
      } finally {
        await queue.close();
        await deleteKeys(redis, `${config.REDIS_PREFIX}:*`);
        await redis.quit();
        await service.stop();
      }
    });
  } finally {
    simulator.postMessage('close');
    await new Promise((resolve) => simulator.once('exit', resolve));
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
