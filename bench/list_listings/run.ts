// list_listings benchmark: 100,000 simulator listings (and FBA inventory rows) applied to the
// read models by the projections' own apply (pages of 20, as the sync records them; no event
// store), then the tool's query (searchListings, without MCP) timed for typical calls: p50 and
// p99. bench/reads times the tool through MCP beside the MCP ping floor.
//
//   npm run build && npm run bench:list_listings [-- --listings 100000] [-- --runs 100] [-- --keep-database-url URL]
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { BENCH_SCALE, createSimulator } from '../../src/marketplace/simulator/index.js';
import { listingItem } from '../../src/marketplace/simulator/selling/listings.js';
import type { RecordedEvent } from '../../src/eventstore/index.js';
import { observationsProjection } from '../../src/projections/observations/projection.js';
import type { Projection } from '../../src/projections/projection.js';
import { fbaInventoryProjection } from '../../src/projections/observed/inventory.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { searchListings, type ListingFilters } from '../../src/projections/observed/listings-search.js';
import { fmt, percentile, printMachine, withDatabase } from '../support.js';
import { INVENTORY_DATASET, LISTINGS_DATASET } from '../../src/domain/observation/datasets.js';

const { values: args } = parseArgs({
  options: {
    listings: { type: 'string', default: String(BENCH_SCALE.listings) },
    runs: { type: 'string', default: '100' },
    /** fill and keep this (empty) database instead of a throwaway one, to look at plans afterwards */
    'keep-database-url': { type: 'string' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const adminUrl = args['admin-url']!;
const PAGE = 20;
const INCLUDED = new Set(['summaries', 'attributes', 'offers', 'fulfillmentAvailability', 'issues'] as const);

async function main(): Promise<void> {
  await printMachine(adminUrl);
  const simulator = createSimulator({ seed: 42, scale: { listings: Number(args.listings), orderLines: 0 } });
  const account_id = randomUUID();
  const keep = args['keep-database-url'];
  const run = keep
    ? (fn: (url: string) => Promise<void>) => fn(keep)
    : (fn: (url: string) => Promise<void>) => withDatabase(adminUrl, `bench_ll_${Date.now()}`, fn);
  await run(async (url) => {
    const db = createDb(url);
    try {
      await migrate(
        db,
        migrationSteps([observationsProjection, listingsProjection, fbaInventoryProjection], {
          eventStoreInPostgres: true,
        }),
      );
      const started = Date.now();
      let count = 0;
      const at = new Date().toISOString();
      const event = (type: string, data: Record<string, unknown>) => ({ type, data }) as RecordedEvent;
      /** one complete read: its pages, then SyncCompleted, through each projection that handles them */
      const read = async (dataset: string, scope: string, pages: unknown[][], projections: Projection[]) => {
        const events = [
          ...pages.map((rows, page) =>
            event('PageObserved', { account_id, dataset, scope, page, hash: '0'.repeat(64), rows, observed_at: at }),
          ),
          event('SyncCompleted', { account_id, dataset, scope, pages: pages.length, observed_at: at }),
        ];
        for (let i = 0; i < events.length; i += 100) {
          await db.transaction(async (trx) => {
            for (const e of events.slice(i, i + 100))
              for (const p of projections) if (p.handles.includes(e.type)) await p.apply(trx, e, 'rm');
          });
        }
      };
      const chunk = <T>(xs: T[], size: number) =>
        Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size));
      for (const participation of simulator.seller.participations) {
        const m = participation.marketplace.id;
        const listings = [...simulator.catalog.listingsIn(m)].map((l) => simulator.selling.listings.live(l));
        await read(
          LISTINGS_DATASET,
          m,
          chunk(
            listings.map((l) => listingItem(l, INCLUDED)),
            PAGE,
          ),
          [listingsProjection, observationsProjection],
        );
        const fba = listings
          .filter((l) => l.fulfillmentChannel === 'FBA')
          .map((l) => ({ sellerSku: l.sku, asin: l.asin, totalQuantity: 7 }));
        await read(INVENTORY_DATASET, m, chunk(fba, 50), [fbaInventoryProjection, observationsProjection]);
        count += listings.length;
      }
      // as autovacuum leaves a table after a sync (visibility map set, statistics current)
      await db.raw('vacuum analyze');
      console.log(`profile: ${fmt(count)} listings written in ${fmt(Date.now() - started)} ms`);
      const sample = simulator.catalog.listingAt(Math.floor(count / 2));
      const calls: Record<string, Omit<ListingFilters, 'account_ids'>> = {
        'newest 20': { limit: 20 },
        'newest 100': { limit: 100 },
        'keyword (title word)': { keyword: sample.title.split(' ')[1]!, limit: 20 },
        'keyword (exact ASIN)': { keyword: sample.asin, limit: 20 },
        sku: { sku: sample.sku, limit: 20 },
        marketplace: { marketplace_id: sample.marketplaceId, limit: 20 },
        'since/until (30 days)': {
          since: new Date(Date.parse(sample.createdAt) - 15 * 86_400_000),
          until: new Date(Date.parse(sample.createdAt) + 15 * 86_400_000),
          limit: 20,
        },
      };
      for (const [name, filters] of Object.entries(calls)) {
        const times: number[] = [];
        let total = 0;
        for (let run = 0; run < Number(args.runs); run++) {
          const t = performance.now();
          total = (await searchListings(db, { account_ids: [account_id], ...filters })).total;
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        console.log(
          `${name.padEnd(24)} total ${fmt(total).padStart(7)}  p50 ${percentile(times, 0.5).toFixed(1)} ms  p99 ${percentile(times, 0.99).toFixed(1)} ms`,
        );
      }
    } finally {
      await db.destroy();
    }
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
