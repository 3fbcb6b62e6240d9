// Operation catalog benchmark: the acquire of the full-size documents (its time and the peak RSS
// of this process, which has done nothing else yet), then search_amazon_operations over MCP on
// that catalog, p50/p99 beside the MCP round-trip floor (server/discover on our own endpoint)
// measured in the same run, taking turns. Goal: search p50 at most 3× the floor.
//
//   npm run build && npm run bench:catalog [-- --from /work/shared/catalog-sources] [-- --calls 300]
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { pino } from 'pino';
import { acquireCatalog, FIXTURE_SOURCE } from '../../src/catalog/acquire.js';
import { coverage } from '../../src/catalog/queries.js';
import { newId } from '../../src/domain/shared/ids.js';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { buildHttpServer } from '../../src/mcp/server.js';
import { migrationSteps } from '../../src/migrations.js';
import { projections } from '../../src/projections/registry.js';
import { connect, ping, timeSideBySide } from '../mcp/round-trips.js';
import { fmt, memorySample, mib, printMachine, runMain, withDatabase } from '../support.js';

const FULL_SOURCE = '/work/shared/catalog-sources';

const { values: args } = parseArgs({
  options: {
    from: { type: 'string' },
    calls: { type: 'string', default: '300' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const calls = Number(args.calls);

/** What agents search for: one word, several words, filters, and a word that matches nothing. */
const SEARCHES: Record<string, unknown>[] = [
  { query: 'campaigns' },
  { query: 'list campaigns' },
  { query: 'report', provider: 'sp_api' },
  { query: 'orders get', method: 'GET' },
  { query: 'inventory summaries' },
  { executable: true },
  { family: 'sponsored-products', limit: 100 },
  { query: 'shipment', deprecated: false, offset: 25 },
  { query: 'nothing-matches-this' },
  {},
];

async function main(): Promise<void> {
  const adminUrl = args['admin-url']!;
  await printMachine(adminUrl);
  const from = args.from ?? (existsSync(FULL_SOURCE) ? FULL_SOURCE : FIXTURE_SOURCE);
  if (from === FIXTURE_SOURCE)
    console.log(`${FULL_SOURCE} is not on this machine: measuring over the small fixture documents instead`);
  await withDatabase(adminUrl, `bench_catalog_${Date.now()}`, async (url) => {
    const db = createDb(url);
    try {
      await migrate(db, migrationSteps(projections, { eventStoreInPostgres: true }));
      const before = memorySample();
      const started = performance.now();
      const { catalog } = await acquireCatalog(db, { from });
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `acquire of ${from}: ${catalog.documents} documents, ${fmt(catalog.operations.length)} operations, ${catalog.gaps.length} source gaps, ${seconds.toFixed(1)} s; peak RSS ${mib(memorySample().peakRss)} (${mib(before.rss)} before)`,
      );
      for (const c of await coverage(db, catalog.revision))
        console.log(
          `  ${c.provider}: acquired ${c.acquired}, schema ${c.schema}, live read ${c.live_read}, queued ${c.queued}, automation ${c.automation}, ingested ${c.ingested}`,
        );

      const app = buildHttpServer({
        db,
        logger: pino({ level: 'silent' }),
        authenticate: async () => null,
        demoUserId: newId(),
        now: () => new Date(),
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const client = await connect(
        `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/demo/mcp`,
        '2026-07-28',
      );
      try {
        let turn = 0;
        const search = async () => {
          const result = (await client.callTool({
            name: 'search_amazon_operations',
            arguments: SEARCHES[turn++ % SEARCHES.length]!,
          })) as CallToolResult;
          if (result.isError) throw new Error(`search_amazon_operations: ${JSON.stringify(result.content)}`);
        };
        const [searched, floor] = await timeSideBySide(search, () => ping(client, '2026-07-28'), calls);
        console.log(
          `${calls} calls each, search and the floor taking turns, ${SEARCHES.length} searches in rotation (revision 2026-07-28, /demo/mcp)`,
        );
        console.log(`  search_amazon_operations  p50 ${searched.p50.toFixed(2)} ms  p99 ${searched.p99.toFixed(2)} ms`);
        console.log(`  round-trip floor          p50 ${floor.p50.toFixed(2)} ms  p99 ${floor.p99.toFixed(2)} ms`);
        const ratio = searched.p50 / floor.p50;
        console.log(`  p50 ratio ${ratio.toFixed(2)}× (goal ≤ 3×: ${ratio <= 3 ? 'met' : 'missed'})`);
      } finally {
        await client.close();
        await app.close();
      }
    } finally {
      await db.destroy();
    }
  });
}

runMain(main);
