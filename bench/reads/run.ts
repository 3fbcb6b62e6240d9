// Read tools benchmark: p50 and p99 latency of list_listings and list_sales_by_listing through
// MCP over HTTP on a synced simulator profile, next to the framework's own floor on the same
// server (an MCP ping: HTTP, JSON-RPC and the stateless server, no tool code).
//
//   npm run build && npm run bench:reads [-- --listings N --order-lines N] [-- --calls 200] [-- --keep NAME]
//
// Defaults to the bench profile (100,000 listings, 1,000,000 order lines). --keep NAME keeps the
// synced database, or reuses it when it exists (bench:query_data takes the same flag).
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { profileOptions, scaleOf, withSyncedProfile } from '../profile.js';
import { fmt, percentile, printMachine, runMain } from '../support.js';

const { values: args } = parseArgs({
  options: {
    ...profileOptions(),
    calls: { type: 'string', default: '200' },
  },
});
const scale = scaleOf(args);
const calls = Number(args.calls);
const US = 'ATVPDKIKX0DER';

const CASES: Array<{ label: string; run: (c: Client) => Promise<unknown> }> = [
  { label: 'floor: MCP ping', run: (c) => c.ping() },
  {
    label: 'list_listings (first page, newest first)',
    run: (c) => tool(c, 'list_listings', { order_by: 'created_at' }),
  },
  { label: 'list_listings keyword (title/SKU substring)', run: (c) => tool(c, 'list_listings', { keyword: 'blue' }) },
  {
    label: 'list_sales_by_listing (30 days, by units, all marketplaces)',
    run: (c) => tool(c, 'list_sales_by_listing', { order_by: 'units', limit: 100 }),
  },
  {
    label: 'list_sales_by_listing (365 days, by revenue, US)',
    run: (c) => tool(c, 'list_sales_by_listing', { marketplace_id: US, since: daysAgo(364), limit: 100 }),
  },
];

function daysAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<unknown> {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.structuredContent)}`);
  return res;
}

async function main(): Promise<void> {
  const adminUrl = args['admin-url']!;
  await printMachine(adminUrl);
  console.log(`profile: ${fmt(scale.listings)} listings, ${fmt(scale.orderLines)} order lines over a year`);
  await withSyncedProfile({ adminUrl, scale, keep: args.keep }, async ({ service }) => {
    const client = new Client({ name: 'bench-reads', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/demo/mcp`)));
    try {
      console.log(
        `${calls} sequential calls each (after 10 warm-up calls), through MCP over HTTP on ${service.url}/demo/mcp`,
      );
      console.log('case'.padEnd(62) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10));
      for (const c of CASES) {
        for (let i = 0; i < 10; i++) await c.run(client);
        const times: number[] = [];
        for (let i = 0; i < calls; i++) {
          const t = performance.now();
          await c.run(client);
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        console.log(
          c.label.padEnd(62) +
            percentile(times, 0.5).toFixed(1).padStart(10) +
            percentile(times, 0.99).toFixed(1).padStart(10),
        );
      }
    } finally {
      await client.close();
    }
  });
}

runMain(main);
