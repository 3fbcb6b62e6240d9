// query_data benchmark: syncs a whole simulator profile through the service's real path
// (clients, sync jobs, event log, projector), then times two analyst queries, each run the
// same number of times, the variants alternating so the machine's load hits them alike:
// - through MCP over HTTP (query_data: parse, rollup rewrite, query role, JSON), with the time of
//   each phase of the tool call (mcp/phases.ts) and what is left for HTTP, the SDK and the client;
// - the same SQL run directly on PostgreSQL as the query role, as written (over the lines of
//   v_sales_lines) and as query_data rewrites it (over a rollup);
// - the same SQL in DuckDB (in process) over the same rows, copied from v_sales_lines.
// bench/profile.ts: the simulator on its own thread, a progress line each minute.
//
//   npm run build && npm run bench:query_data [-- --listings 100000 --order-lines 1000000] [-- --runs 5] [-- --keep NAME]
//
// Defaults to the bench profile (100,000 listings, 1,000,000 order lines).
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { existingViews } from '../../src/projections/views/queries.js';
import { viewDefinitions } from '../../src/projections/views/registry.js';
import { rewriteForRollups, ROLLUPS_SCHEMA } from '../../src/projections/views/rollup-rewrite.js';
import { withQueryRole } from '../../src/projections/views/run.js';
import { profileOptions, scaleOf, withSyncedProfile } from '../profile.js';
import { fmt, printMachine, runMain } from '../support.js';
import { printPhases, withPhases } from '../tool-phases.js';
import { loadDuckPeer } from './duckdb.js';

const { values: args } = parseArgs({
  options: {
    ...profileOptions(),
    runs: { type: 'string', default: '5' },
  },
});
const adminUrl = args['admin-url']!;
const scale = scaleOf(args);
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
const ms = (x: number | undefined) => (x === undefined ? '-' : `${x.toFixed(1)} ms`);

async function main(): Promise<void> {
  await printMachine(adminUrl);
  console.log(`profile: ${fmt(scale.listings)} listings, ${fmt(scale.orderLines)} order lines over a year`);
  await withSyncedProfile({ adminUrl, scale, keep: args.keep }, async ({ service }) => {
    const db = service.db;
    const accountIds: string[] = (await db('rm.accounts').select('account_id')).map((r) => r.account_id as string);
    let t = performance.now();
    const duck = await loadDuckPeer(db, accountIds);
    console.log(`DuckDB peer: ${fmt(duck.rows)} rows of v_sales_lines copied in ${fmt(performance.now() - t)} ms`);
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/demo/mcp`)));
    const rollups = await existingViews(db, ROLLUPS_SCHEMA);
    try {
      console.log(`each figure the median of ${runs} runs (variants alternating); ratios to DuckDB's median`);
      for (const [label, sql] of Object.entries(QUERIES)) {
        const rewritten = rewriteForRollups(sql.trim(), viewDefinitions, rollups, accountIds.length === 1);
        const phases: Array<Record<string, number>> = [];
        const variants: Record<string, () => Promise<number>> = {
          'query_data through MCP': async () => {
            const res = await withPhases('query_data', phases, () =>
              client.callTool({ name: 'query_data', arguments: { sql } }),
            );
            if (res.isError) throw new Error(`query_data refused: ${JSON.stringify(res.structuredContent)}`);
            return (res.structuredContent as { row_count: number }).row_count;
          },
          'PostgreSQL direct, as written (lines)': () =>
            withQueryRole(db, accountIds, async (run) => (await run(sql)).rows.length),
          ...(rewritten
            ? {
                'PostgreSQL direct, rewritten (rollup)': () =>
                  withQueryRole(db, accountIds, async (run) => (await run(rewritten)).rows.length),
              }
            : {}),
          'DuckDB, same rows': async () => (await duck.connection.runAndReadAll(sql)).getRows().length,
        };
        const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
        const counts: Record<string, number> = {};
        for (let i = 0; i < runs; i++) {
          for (const [name, run] of Object.entries(variants)) {
            t = performance.now();
            // a failure (the 3 s timeout, say) is a figure too: say so and go on
            const rows = await run().catch((err: unknown) => {
              console.log(`  ${name}: ${(err as Error).message.slice(0, 200)}`);
              return -1;
            });
            if (rows >= 0) times[name]!.push(performance.now() - t);
            counts[name] = rows;
          }
        }
        const duckMedian = median(times['DuckDB, same rows']!);
        console.log(`${label}: ${rewritten ? 'answered from a rollup' : 'not rewritable'}`);
        for (const [name, xs] of Object.entries(times)) {
          const m = xs.length ? median(xs) : undefined;
          const ratio = m === undefined ? '' : `  ${(m / duckMedian).toFixed(2)}× DuckDB`;
          console.log(
            `  ${name.padEnd(40)} ${ms(m).padStart(10)}  (${counts[name]} rows, ${xs.length} answered)${ratio}`,
          );
        }
        printPhases("query_data's phases", phases);
      }
    } finally {
      await client.close();
      duck.close();
    }
  });
}
runMain(main);
