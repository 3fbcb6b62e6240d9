import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { LISTINGS_REPORT, ORDERS_REPORT } from '../../src/marketplace/clients/flat-file.js';
import { orderAsOf } from '../../src/marketplace/simulator/selling/orders-book.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { ordersProjection } from '../../src/projections/observed/orders.js';
import { CONFIRMED_ORDER_STATUSES } from '../../src/projections/observed/sales-rollups.js';
import { vSalesLines } from '../../src/projections/views/v_sales_lines.js';
import type { SyncJobDefinition } from '../../src/workers/sync/job.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { HISTORY_DAYS, ordersSync, TRAILING_DAYS } from '../../src/workers/sync/orders.js';
import { syncQueue, syncWorker } from '../../src/workers/sync/queue.js';
import { dropRedisKeys, TEST_REDIS_PREFIX } from '../support/env.js';
import { eventually } from '../support/processes.js';
import { DAY_MS, startHarness, type Harness } from '../support/observed.js';

// The first sync of an account by bulk report, through the real queue and worker, the
// simulator over HTTP, the event log and the projections: a year of orders costs a report per
// marketplace and 30 days instead of a getOrderItems call per order, and the per-order path
// that later runs take over the same days gives the same read-model rows (but for the order
// item ids the report lacks, and the fields each source has that the other hasn't).

const SELLER = 'Atzr|demo-seller';
/** Enough orders that a US day fills more than one page of 100. */
const SCALE = { listings: 400, orderLines: 120_000 };

describe('sync worker: the first sync by bulk report, then the per-order path', function () {
  this.timeout(900_000);
  let h: Harness;
  let redis: Redis;
  let account: string;
  const prefix = `${TEST_REDIS_PREFIX}-sync-backfill-${randomUUID().slice(0, 8)}`;
  const marketplaces = () => h.simulator.seller.participations.map((p) => p.marketplace.id);
  const today = () => Math.floor(h.clock.ms / DAY_MS);
  const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
  const requests = (method: string, test: (path: string) => boolean) =>
    h.simulator.requests.list().filter((r) => r.method === method && test(r.path));
  const reportsCreated = (type: string) =>
    requests('POST', (p) => p === '/reports/2021-06-30/reports').filter(
      (r) => (r.body as { reportType: string }).reportType === type,
    ).length;

  before(async function () {
    this.timeout(120_000);
    h = await startHarness([listingsProjection, ordersProjection], [vSalesLines], Date.parse('2026-03-10T09:00:00Z'), {
      seed: 11,
      scale: SCALE,
      // every request of a run stays in the log
      requestLogLimit: 100_000,
    });
    account = await h.connect('seller');
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  });
  after(async () => {
    redis?.disconnect();
    await h?.close();
    await dropRedisKeys(`${prefix}*`);
  });

  /** One run of the sync through the queue and a worker, then the projections caught up. */
  async function runThroughWorker(definition: SyncJobDefinition): Promise<void> {
    const queue = syncQueue(redis, prefix);
    const worker = syncWorker({ ...h.deps(SELLER), connection: redis, prefix }, [definition]);
    try {
      const job = await queue.add(definition.name, { account_id: account });
      await eventually(
        async () => {
          const state = await job.getState();
          if (state === 'failed')
            throw new Error(`${definition.name} failed: ${(await queue.getJob(job.id!))?.failedReason}`);
          return state === 'completed' ? true : undefined;
        },
        `${definition.name} to complete`,
        600_000,
      );
    } finally {
      await worker.close();
      await queue.close();
    }
    await h.projector.whenCaughtUp();
  }

  const trailingScopes = () =>
    marketplaces().flatMap((m) => Array.from({ length: TRAILING_DAYS }, (_, k) => `${m}/${dateOf(today() - k)}`));

  /** The trailing days' rows of both orders tables, in page order. */
  async function trailingRows() {
    const rows = (table: string) =>
      h
        .db(`rm.${table}`)
        .where({ account_id: account })
        .whereIn('scope', trailingScopes())
        .orderBy(['scope', 'page', 'row']);
    return { orders: await rows('orders'), lines: await rows('order_lines') };
  }

  /** The trailing days' orders as last recorded (the raw rows of their latest page events), in page order. */
  async function trailingRaw(): Promise<Array<Record<string, unknown>>> {
    const scopes = new Set(trailingScopes());
    const latest = new Map<string, { scope: string; page: number; rows: Array<Record<string, unknown>> }>();
    for (const event of await h.allEvents()) {
      const data = event.data as { dataset?: string; account_id?: string; scope: string; page: number; rows: [] };
      if (event.type !== 'PageObserved' || data.dataset !== 'orders' || data.account_id !== account) continue;
      if (scopes.has(data.scope)) latest.set(`${data.scope}/${data.page}`, data);
    }
    return [...latest.values()]
      .sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.page - b.page))
      .flatMap((p) => p.rows);
  }

  let fromReport: Awaited<ReturnType<typeof trailingRows>>;
  let rawFromReport: Array<Record<string, unknown>>;

  it('a first orders sync reads the year from reports (30 days each), with no per-order call', async () => {
    await runThroughWorker(ordersSync);
    const windows = Math.ceil(HISTORY_DAYS / 30);
    expect(reportsCreated(ORDERS_REPORT)).to.equal(marketplaces().length * windows);
    expect(requests('GET', (p) => p.startsWith('/orders/v0/orders'))).to.have.length(0);

    // every line of a confirmed order of the year, as the simulator placed it
    let lines = 0;
    let units = 0;
    for (const m of marketplaces()) {
      for (let day = today() - HISTORY_DAYS + 1; day <= today(); day++) {
        for (const order of h.simulator.selling.orders.ordersOn(day, m)) {
          if (order.purchasedAt > h.clock.ms) continue;
          if (!(CONFIRMED_ORDER_STATUSES as readonly string[]).includes(orderAsOf(order, h.clock.ms).status)) continue;
          lines += order.lines.length;
          units += order.lines.reduce((n, l) => n + l.quantity, 0);
        }
      }
    }
    const { rows } = await h.query([account], 'select count(*) as lines, sum(quantity) as units from v_sales_lines');
    expect(rows[0]).to.deep.equal({ lines: String(lines), units: String(units) });
    const pages = await h.db('rm.orders').where({ account_id: account }).max('page as page').first();
    expect(Number(pages?.page), 'a US day fills more than one page').to.be.greaterThan(0);
    fromReport = await trailingRows();
    expect(fromReport.lines.length).to.be.greaterThan(0);
    rawFromReport = await trailingRaw();
    expect(rawFromReport).to.have.length(fromReport.orders.length);
  });

  it('the next run reads the trailing days per order: the same read-model rows (item ids aside); the raw rows agree where both sources have a field', async () => {
    h.simulator.requests.clear();
    await runThroughWorker(ordersSync);
    expect(reportsCreated(ORDERS_REPORT)).to.equal(0);
    expect(requests('GET', (p) => p.endsWith('/orderItems')).length).to.be.greaterThan(0);
    const oldest = Math.min(
      ...requests('GET', (p) => p === '/orders/v0/orders')
        .filter((r) => r.query.CreatedAfter !== undefined)
        .map((r) => Date.parse(r.query.CreatedAfter!)),
    );
    expect(oldest).to.equal((today() - TRAILING_DAYS + 1) * DAY_MS);

    const fromApi = await trailingRows();
    const without = (row: Record<string, unknown>, ...keys: string[]) =>
      Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));
    expect(fromApi.orders).to.deep.equal(fromReport.orders);
    expect(fromApi.lines.map((r) => without(r, 'order_item_id'))).to.deep.equal(
      fromReport.lines.map((r) => without(r, 'order_item_id')),
    );
    for (const [i, line] of fromReport.lines.entries()) {
      expect(line.order_item_id).to.equal(`report:${line.amazon_order_id}:${line.sku}`);
      expect(fromApi.lines[i].order_item_id).to.match(/^\d+$/);
    }
    // The raw rows as recorded: what the report gives of an order, the Orders API gives alike (it
    // gives more); an item's shared fields are equal, its id the provider's on the per-order path only.
    const rawFromApi = await trailingRaw();
    expect(rawFromApi).to.have.length(rawFromReport.length);
    const items = (order: Record<string, unknown>) => (order.OrderItems ?? []) as Array<Record<string, unknown>>;
    for (const [i, order] of rawFromReport.entries()) {
      const api = rawFromApi[i]!;
      expect(without(api, 'OrderItems'), String(order.AmazonOrderId)).to.deep.include(without(order, 'OrderItems'));
      expect(items(api)).to.have.length(items(order).length);
      for (const [k, item] of items(order).entries()) {
        const apiItem = items(api)[k]!;
        const shared = Object.keys(item).filter((key) => key in apiItem && key !== 'OrderItemId');
        expect(shared).to.include.members(['ASIN', 'SellerSKU', 'Title', 'QuantityOrdered', 'ItemPrice', 'ItemTax']);
        expect(Object.fromEntries(shared.map((key) => [key, apiItem[key]]))).to.deep.equal(
          Object.fromEntries(shared.map((key) => [key, item[key]])),
        );
      }
    }
  });

  it('a first listings sync reads one all-listings report per marketplace, then every listing page', async () => {
    await runThroughWorker(listingsSync);
    expect(reportsCreated(LISTINGS_REPORT)).to.equal(marketplaces().length);
    expect(requests('GET', (p) => p.startsWith('/listings/2021-08-01/items/')).length).to.be.greaterThan(0);
    const all = marketplaces().reduce((n, m) => n + h.simulator.catalog.marketplaceListingCount(m), 0);
    const { count } = (await h.db('rm.listing_current').where({ account_id: account }).count('* as count').first())!;
    expect(Number(count)).to.equal(all);
  });
});
