// Mutations: admissions per second through queue_mutations (MCP over HTTP, `concurrency` calls
// at a time, one listing patch each), then dispatch throughput: the real dispatch worker sends the
// receipts to the simulator answering after a fixed latency, one request at a time per target.
//
//   npm run build && npm run bench:mutations [-- --latency 50 --receipts 200 --concurrency 8]
//
// Two runs: every receipt on 1 listing, then the same number spread over 100 listings. Prints
// admissions per second, receipts per second from the worker's start until the read model shows
// all submitted, and exits non-zero if any listing's applied changes are not its receipts in
// admission order.
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pino from 'pino';
import { newId } from '../../src/domain/shared/ids.js';
import { createEventStore } from '../../src/eventstore/index.js';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { createSimulator, DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/app.js';
import { buildHttpServer } from '../../src/mcp/server.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { admissionProjection } from '../../src/projections/admission/projection.js';
import { observationsProjection } from '../../src/projections/observations/projection.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { mutationsProjection } from '../../src/projections/mutations/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { fmt, printMachine, startBenchDispatch, withDatabase } from '../support.js';
import { listingId } from '../../src/domain/observation/ids.js';
import { SCOPES } from '../../src/domain/user/scopes.js';

const { values: args } = parseArgs({
  options: {
    latency: { type: 'string', default: '50' },
    receipts: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '8' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
    'redis-url': { type: 'string', default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
  },
});
const adminUrl = args['admin-url']!;
const US = 'ATVPDKIKX0DER';
const SELLER = 'Atzr|demo-seller';
const latencyMs = Number(args.latency);
const total = Number(args.receipts);
const concurrency = Number(args.concurrency);

async function run(url: string, targets: number): Promise<boolean> {
  const db = createDb(url, { min: 0, max: concurrency * 2 + 5 });
  const store = createEventStore({ DATABASE_URL: url });
  const projections = [
    accountsProjection,
    observationsProjection,
    listingsProjection,
    admissionProjection,
    mutationsProjection,
  ];
  await migrate(db, migrationSteps(projections, { eventStoreInPostgres: true }));
  const projector = new Projector(db, store, projections, { pollMs: 20 });
  projector.start();
  const simulator = createSimulator({ latencyMs, scale: { listings: 1000, orderLines: 1000 } });
  await simulator.listen();
  const prefix = `bench-mutations-${process.pid}-${targets}`;
  const ctx = { store, metadata: { actor: { kind: 'worker' as const, id: 'bench' } } };
  const lwa = createLwaClient({ tokenUrl: simulator.endpoints().lwaTokenUrl, ...DEFAULT_LWA_CLIENT });
  const logger = pino({ level: 'silent' });
  // a user with the simulator's seller, its listings synced: what queue_mutations resolves targets in
  const user = newId();
  const account = newId();
  await syncConnections(
    { ctx, lwa, endpoints: simulator.endpoints(), logger },
    {
      user_id: user,
      account_id: account,
      credentials: 'seller',
      selling_refresh_token: SELLER,
      selling_partner_id: simulator.seller.merchantId,
    },
  );
  await projector.whenCaughtUp();
  await listingsSync.run(
    {
      ctx,
      db,
      lwa,
      endpoints: simulator.endpoints(),
      credentials: () => ({ selling_refresh_token: SELLER }),
      logger,
      now: () => new Date(),
    },
    account,
  );
  await projector.whenCaughtUp();
  const app = buildHttpServer({
    db,
    store,
    logger,
    authenticate: async (token) =>
      token === user ? { userId: user, scopes: SCOPES, client: { kind: 'oauth_client', client_id: 'bench' } } : null,
    demoUserId: newId(),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const client = new Client({ name: 'bench-mutations', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${user}` } },
    }),
  );
  try {
    // listings the marketplace still has (a deleted one is no target)
    const listings = [...simulator.catalog.listingsIn(US)]
      .map((l) => simulator.selling.listings.live(l))
      .filter((l) => l.status !== 'DELETED')
      .slice(0, targets);
    const admitted: Array<{ id: string; sku: string; price: number }> = [];
    const admitStarted = performance.now();
    let next = 0;
    // queue_mutations calls, `concurrency` at a time, one listing patch each
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < total; i = next++) {
          const listing = listings[i % targets]!;
          const price = 10 + i / 100;
          const res = await client.callTool({
            name: 'queue_mutations',
            arguments: {
              mutations: [
                {
                  target: { type: 'Listing', id: listingId(account, US, listing.sku) },
                  action: 'update',
                  payload: {
                    productType: 'PRODUCT',
                    patches: [
                      {
                        op: 'replace',
                        path: '/attributes/purchasable_offer',
                        value: [
                          {
                            marketplace_id: US,
                            currency: 'USD',
                            audience: 'ALL',
                            our_price: [{ schedule: [{ value_with_tax: price }] }],
                          },
                        ],
                      },
                    ],
                  },
                },
              ],
            },
          });
          const result = (res.structuredContent as { results: Array<{ receipt?: { id: string }; error?: unknown }> })
            .results[0]!;
          if (!result.receipt) throw new Error(`admission refused: ${JSON.stringify(result)}`);
          admitted[i] = { id: result.receipt.id, sku: listing.sku, price };
        }
      }),
    );
    const admitSeconds = (performance.now() - admitStarted) / 1000;
    console.log(
      `${String(targets).padStart(3)} target(s): ${fmt(total)} queue_mutations calls (${concurrency} at a time) in ${admitSeconds.toFixed(2)} s = ${(total / admitSeconds).toFixed(1)} admissions/s`,
    );
    // admission order per target is created_at order: receipts are compared in that order below
    await projector.whenCaughtUp();
    const created = new Map(
      (
        await db.withSchema('rm').table('mutation_receipts').where({ account_id: account }).select('id', 'created_at')
      ).map((r: { id: string; created_at: Date }) => [r.id, r.created_at.getTime()]),
    );
    admitted.sort((a, b) => created.get(a.id)! - created.get(b.id)! || a.id.localeCompare(b.id));
    const started = performance.now();
    const dispatch = await startBenchDispatch({
      db,
      store,
      lwa,
      endpoints: simulator.endpoints(),
      sellerToken: SELLER,
      redisUrl: args['redis-url']!,
      prefix,
      concurrency,
    });
    for (;;) {
      const [row] = await db
        .withSchema('rm')
        .table('mutation_receipts')
        .where({ account_id: account, status: 'submitted' })
        .count<{ count: string }[]>('* as count');
      if (Number(row?.count) === total) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    await dispatch.close();
    const applied = simulator.selling.listings
      .submissions()
      .filter((s) => s.status === 'ACCEPTED' && s.mode === 'APPLY');
    const priceOf = (s: (typeof applied)[number]) =>
      (s.patches[0]!.value![0] as { our_price: [{ schedule: [{ value_with_tax: number }] }] }).our_price[0].schedule[0]
        .value_with_tax;
    // the marketplace refuses some listings' offer patches (FBA, say): those receipts are rejected, not applied
    const outcomes = new Map(
      (
        await db
          .withSchema('rm')
          .table('mutation_receipts')
          .where({ account_id: account })
          .select('id', 'outcome', 'error')
      ).map((r: { id: string; outcome: string }) => [r.id, r.outcome]),
    );
    const accepted = admitted.filter((a) => outcomes.get(a.id) === 'accepted');
    const inOrder = listings.every(
      (l) =>
        JSON.stringify(applied.filter((s) => s.sku === l.sku).map(priceOf)) ===
        JSON.stringify(accepted.filter((a) => a.sku === l.sku).map((a) => a.price)),
    );
    console.log(
      `${String(targets).padStart(3)} target(s): ${fmt(total)} receipts in ${seconds.toFixed(2)} s = ${(total / seconds).toFixed(1)} receipts/s; ${accepted.length} accepted, ${applied.length} applied, each target's changes = its accepted receipts in admission order: ${inOrder}`,
    );
    return inOrder && applied.length === accepted.length;
  } finally {
    await client.close();
    await app.close();
    await projector.stop();
    await simulator.close();
    await store.close();
    await db.destroy();
  }
}

await printMachine(adminUrl);
console.log(`simulator latency ${latencyMs} ms, worker concurrency ${concurrency}`);
let ok = true;
for (const targets of [1, 100])
  ok = (await withDatabase(adminUrl, `bench_mutations_${process.pid}_${targets}`, (url) => run(url, targets))) && ok;
process.exitCode = ok ? 0 : 1;
