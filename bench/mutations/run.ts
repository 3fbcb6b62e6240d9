// Dispatch throughput: receipts admitted up front (straight through the command handler; the
// queue_mutations tool will be timed here once it exists), then the real dispatch worker sends
// them to the simulator answering after a fixed latency, one request at a time per target.
//
//   npm run build && npm run bench:mutations [-- --latency 50 --receipts 200 --concurrency 8]
//
// Two runs: every receipt on 1 listing, then the same number spread over 100 listings. Prints
// receipts per second from the worker's start until the read model shows all submitted, and
// exits non-zero if any listing's applied changes are not its receipts in admission order.
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pino from 'pino';
import { executeMutationCommand } from '../../src/commands/mutations.js';
import { newId } from '../../src/domain/shared/ids.js';
import { createEventStore } from '../../src/eventstore/index.js';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { deleteKeys } from '../../src/infra/redis.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { createSimulator, DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/app.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { dispatchControlsProjection } from '../../src/projections/dispatch-controls/projection.js';
import { mutationsProjection } from '../../src/projections/mutations/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { dispatchClients } from '../../src/workers/dispatch/clients.js';
import { startDispatch } from '../../src/workers/dispatch/queue.js';
import { fmt, printMachine, withDatabase } from '../support.js';

const { values: args } = parseArgs({
  options: {
    latency: { type: 'string', default: '50' },
    receipts: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '8' },
    'admin-url': { type: 'string', default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    'redis-url': { type: 'string', default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
  },
});
const adminUrl = args['admin-url']!;
const US = 'ATVPDKIKX0DER';
const latencyMs = Number(args.latency);
const total = Number(args.receipts);
const concurrency = Number(args.concurrency);

async function run(url: string, targets: number): Promise<boolean> {
  const db = createDb(url, { min: 0, max: concurrency * 2 + 5 });
  const store = createEventStore({ DATABASE_URL: url });
  // accounts too: the dispatcher reads which credential set an account's connections name
  await migrate(db, [accountsProjection, mutationsProjection, dispatchControlsProjection], { eventStoreInPostgres: true });
  const projector = new Projector(db, store, [mutationsProjection, dispatchControlsProjection], { pollMs: 20 });
  projector.start();
  const simulator = createSimulator({ latencyMs, scale: { listings: 1000, orderLines: 1000 } });
  await simulator.listen();
  const redis = new Redis(args['redis-url']!, { maxRetriesPerRequest: null });
  const prefix = `bench-mutations-${process.pid}-${targets}`;
  const account = newId();
  const ctx = { store, metadata: { actor: { kind: 'worker' as const, id: 'bench' } } };
  try {
    const listings = Array.from({ length: targets }, (_, i) => simulator.catalog.marketplaceListingAt(US, i));
    let last = null;
    const admitted: Array<{ id: string; sku: string; price: number }> = [];
    for (let i = 0; i < total; i++) {
      const listing = listings[i % targets]!;
      const price = 10 + i / 100;
      const id = newId();
      const result = await executeMutationCommand(ctx, {
        type: 'AdmitMutation',
        receipt_id: id,
        account_id: account,
        target: { type: 'Listing', id: `listing-${listing.sku}` },
        provider: { sku: listing.sku, marketplaceId: US, sellerId: simulator.seller.merchantId },
        action: 'update',
        payload: { productType: 'PRODUCT', patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: [{ marketplace_id: US, currency: 'USD', audience: 'ALL', our_price: [{ schedule: [{ value_with_tax: price }] }] }] }] },
        idempotency: null,
        blocked: null,
        created_at: new Date(Date.now() + i).toISOString(),
      });
      last = result.position ?? last;
      admitted.push({ id, sku: listing.sku, price });
    }
    await projector.whenCaughtUp(last);
    const lwa = createLwaClient({ tokenUrl: simulator.endpoints().lwaTokenUrl, ...DEFAULT_LWA_CLIENT });
    const started = performance.now();
    const dispatch = await startDispatch({
      connection: redis,
      prefix,
      db,
      ctx: { store, metadata: { actor: { kind: 'worker', id: 'dispatch' } } },
      ...dispatchClients({ db, lwa, endpoints: simulator.endpoints(), credentials: () => ({ selling_refresh_token: 'Atzr|demo-seller' }), timeoutMs: 10_000 }),
      now: Date.now,
      backoff: { baseMs: 100, maxMs: 2000 },
      batchSize: 10,
      reconcileEveryMs: 60_000,
      sweepEveryMs: 1000,
      concurrency,
      logger: pino({ level: 'warn' }),
    });
    for (;;) {
      const [row] = await db.withSchema('rm').table('mutation_receipts').where({ account_id: account, status: 'submitted' }).count<{ count: string }[]>('* as count');
      if (Number(row?.count) === total) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    await dispatch.close();
    const applied = simulator.selling.listings.submissions().filter((s) => s.status === 'ACCEPTED' && s.mode === 'APPLY');
    const priceOf = (s: (typeof applied)[number]) => ((s.patches[0]!.value![0] as { our_price: [{ schedule: [{ value_with_tax: number }] }] }).our_price[0].schedule[0].value_with_tax);
    // the marketplace refuses some listings' offer patches (FBA, say): those receipts are rejected, not applied
    const outcomes = new Map((await db.withSchema('rm').table('mutation_receipts').where({ account_id: account }).select('id', 'outcome', 'error')).map((r: { id: string; outcome: string }) => [r.id, r.outcome]));
    const accepted = admitted.filter((a) => outcomes.get(a.id) === 'accepted');
    const inOrder = listings.every((l) => JSON.stringify(applied.filter((s) => s.sku === l.sku).map(priceOf)) === JSON.stringify(accepted.filter((a) => a.sku === l.sku).map((a) => a.price)));
    console.log(`${String(targets).padStart(3)} target(s): ${fmt(total)} receipts in ${seconds.toFixed(2)} s = ${(total / seconds).toFixed(1)} receipts/s; ${accepted.length} accepted, ${applied.length} applied, each target's changes = its accepted receipts in admission order: ${inOrder}`);
    return inOrder && applied.length === accepted.length;
  } finally {
    await deleteKeys(redis, `${prefix}:*`);
    redis.disconnect();
    await projector.stop();
    await simulator.close();
    await store.close();
    await db.destroy();
  }
}

await printMachine(adminUrl);
console.log(`simulator latency ${latencyMs} ms, worker concurrency ${concurrency}`);
let ok = true;
for (const targets of [1, 100]) ok = (await withDatabase(adminUrl, `bench_mutations_${process.pid}_${targets}`, (url) => run(url, targets))) && ok;
process.exitCode = ok ? 0 : 1;
