// query_data benchmark: syncs a whole simulator profile through the service's real path
// (clients, sync jobs, event log, projector), then times two analyst queries through MCP
// over HTTP (bench/profile.ts: the simulator on its own thread, a progress line each minute).
//
//   npm run build && npm run bench:query_data [-- --listings 100000 --order-lines 1000000] [-- --runs 5] [-- --keep NAME]
//
// Defaults to the bench profile of issue 3 (100,000 listings, 1,000,000 order lines).
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BENCH_SCALE } from '../../src/marketplace/simulator/index.js';
import { withSyncedProfile } from '../profile.js';
import { fmt, printMachine } from '../support.js';

const { values: args } = parseArgs({
  options: {
    listings: { type: 'string', default: String(BENCH_SCALE.listings) },
    'order-lines': { type: 'string', default: String(BENCH_SCALE.orderLines) },
    runs: { type: 'string', default: '5' },
    keep: { type: 'string' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  await printMachine(adminUrl);
  console.log(`profile: ${fmt(scale.listings)} listings, ${fmt(scale.orderLines)} order lines over a year`);
  await withSyncedProfile({ adminUrl, scale, keep: args.keep }, async ({ service }) => {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/demo/mcp`)));
    try {
      const count = await client.callTool({
        name: 'query_data',
        arguments: { sql: 'select count(*) as lines from v_sales_lines' },
      });
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
        const refused = refusals.length
          ? `; refused in ${refusals.length} of ${runs} runs (${[...new Set(refusals)].join(', ')})`
          : '';
        const timing = times.length
          ? `median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms over ${times.length} answered runs`
          : 'no run answered';
        console.log(`${label}: ${timing} through MCP over HTTP (${rows} rows)${refused}`);
      }
    } finally {
      await client.close();
    }
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
