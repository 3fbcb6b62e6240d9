import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { newId } from '../../src/domain/shared/ids.js';
import { marketplaceById } from '../../src/domain/shared/marketplaces.js';
import { createSellingClient, type Order } from '../../src/marketplace/clients/index.js';
import { orderAsOf, type SimOrder } from '../../src/marketplace/simulator/selling/orders-book.js';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { ORDER_LINES_TABLE, ORDERS_TABLE, ordersProjection } from '../../src/projections/observed/orders.js';
import { salesByListing } from '../../src/projections/observed/sales-queries.js';
import { recordOrderScope, refreshSales } from '../../src/projections/observed/sales-rollups.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { ordersSync } from '../../src/workers/sync/orders.js';
import { syncScope } from '../../src/workers/sync/scope.js';
import { call, serveMcp, type McpServing } from '../support/mcp.js';
import { DAY_MS, startHarness, type Harness } from '../support/observed.js';

// get_sales_summary and list_sales_by_listing through the MCP client over HTTP, on orders and
// listings synced from the simulator by the real jobs. Expected figures come from the
// simulator's own orders book: every order placed by the clock, with its status at the clock,
// grouped by the local day it was placed on (Intl, independently of the service's SQL).

const SELLER = 'Atzr|demo-seller';
const US = 'ATVPDKIKX0DER';
const JP = 'A1VC38T7YXB528';
const CONFIRMED = ['Shipped', 'Unshipped', 'PartiallyShipped'];

const localDate = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(ms),
  );
const addDays = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Figures {
  revenue: number;
  units: number;
  orders: number;
  order_lines: number;
}

describe('sales tools: get_sales_summary and list_sales_by_listing over synced orders', function () {
  this.timeout(300_000);
  let h: Harness;
  let serving: McpServing;
  let client: Client;
  let user: string;
  let account: string;
  const start = Date.parse('2026-03-10T09:00:00Z');
  const marketplaces = () => h.simulator.seller.participations.map((p) => p.marketplace.id).sort();
  const tz = (marketplace: string) => marketplaceById(marketplace)!.timeZone;

  /** Orders placed by the clock on local days first..last of the marketplace, with their status now. */
  function ordersIn(marketplace: string, first: string, last: string): Array<{ order: SimOrder; status: string }> {
    const out = [];
    const from = Math.floor(Date.parse(`${first}T00:00:00Z`) / DAY_MS) - 1;
    const to = Math.floor(Date.parse(`${last}T00:00:00Z`) / DAY_MS) + 1;
    for (let day = from; day <= to; day++) {
      for (const order of h.simulator.selling.orders.ordersOn(day, marketplace)) {
        const local = localDate(order.purchasedAt, tz(marketplace));
        if (order.purchasedAt <= h.clock.ms && local >= first && local <= last)
          out.push({ order, status: orderAsOf(order, h.clock.ms).status });
      }
    }
    return out;
  }
  const confirmedIn = (marketplace: string, first: string, last: string) =>
    ordersIn(marketplace, first, last)
      .filter((o) => CONFIRMED.includes(o.status))
      .map((o) => o.order);
  const figures = (orders: readonly SimOrder[]): Figures => ({
    revenue: orders.reduce((n, o) => n + o.lines.reduce((m, l) => m + l.itemPrice, 0), 0),
    units: orders.reduce((n, o) => n + o.lines.reduce((m, l) => m + l.quantity, 0), 0),
    orders: orders.length,
    order_lines: orders.reduce((n, o) => n + o.lines.length, 0),
  });
  /** Expected per-listing rows `<marketplace>/<asin>/<sku>` → figures. */
  function byListing(
    marketplace: string,
    first: string,
    last: string,
  ): Map<string, { revenue: number; units: number; orders: number; currency: string }> {
    const out = new Map<string, { revenue: number; units: number; orders: number; currency: string }>();
    for (const o of confirmedIn(marketplace, first, last)) {
      for (const l of o.lines) {
        const key = `${marketplace}/${l.listing.asin}/${l.listing.sku}`;
        const row = out.get(key) ?? { revenue: 0, units: 0, orders: 0, currency: o.currency };
        out.set(key, {
          ...row,
          revenue: row.revenue + l.itemPrice,
          units: row.units + l.quantity,
          orders: row.orders + 1,
        });
      }
    }
    return out;
  }
  const summary = async (args: Record<string, unknown> = {}, as = client) =>
    (await call(as, 'get_sales_summary', args)).structuredContent;
  const byListingTool = async (args: Record<string, unknown> = {}, as = client) =>
    (await call(as, 'list_sales_by_listing', args)).structuredContent;
  const rowOf = (rows: any[], marketplace: string, acc = account) =>
    rows.find((r) => r.marketplace_id === marketplace && r.account_id === acc);
  const numbers = (r: any): Figures => ({
    revenue: r.revenue,
    units: r.units,
    orders: r.orders,
    order_lines: r.order_lines,
  });

  before(async () => {
    h = await startHarness([listingsProjection, ordersProjection], [], start);
    user = newId();
    account = await h.connect('seller', user);
    await h.run(listingsSync, account, SELLER);
    await h.run(ordersSync, account, SELLER);
    serving = await serveMcp(h.db, () => new Date(h.clock.ms));
    client = await serving.clientFor(user);
  });
  after(async () => {
    await serving.close();
    await h.close();
  });

  describe('get_sales_summary', () => {
    it('defaults to the trailing 30 local days: one row per marketplace with revenue (minor units; whole yen in JP), units, orders, order lines', async () => {
      const body = await summary();
      expect(body.windows.map((w: any) => w.marketplace_id)).to.have.members(marketplaces());
      for (const w of body.windows) {
        const today = localDate(h.clock.ms, tz(w.marketplace_id));
        expect(w).to.deep.equal({
          marketplace_id: w.marketplace_id,
          time_zone: tz(w.marketplace_id),
          since: addDays(today, -29),
          until: today,
          days: 30,
        });
      }
      expect(body.windows.find((w: any) => w.marketplace_id === US).time_zone).to.equal('America/Los_Angeles');
      expect(body.rows).to.have.length(marketplaces().length);
      for (const m of marketplaces()) {
        const w = body.windows.find((x: any) => x.marketplace_id === m);
        const row = rowOf(body.rows, m);
        const orders = confirmedIn(m, w.since, w.until);
        expect(numbers(row), m).to.deep.equal(figures(orders));
        expect(row.currency).to.equal(orders[0]!.currency);
        expect(row.account_name).to.be.a('string').and.not.equal('');
      }
      const jp = rowOf(body.rows, JP);
      expect(jp.currency).to.equal('JPY');
      // simulator yen prices are whole tens of yen, and the figure is the book's own yen total
      expect(jp.revenue % 10).to.equal(0);
      expect(Number.isInteger(jp.revenue)).to.equal(true);
    });

    it('a bare-date window covers whole local days; an instant falls on its local day, so windows differ per marketplace', async () => {
      const dated = await summary({ since: '2026-02-01', until: '2026-02-28' });
      for (const m of marketplaces()) {
        expect(dated.windows.find((w: any) => w.marketplace_id === m)).to.include({
          since: '2026-02-01',
          until: '2026-02-28',
          days: 28,
        });
        expect(numbers(rowOf(dated.rows, m)), m).to.deep.equal(figures(confirmedIn(m, '2026-02-01', '2026-02-28')));
      }
      // 12:00Z is Feb 10 both in Los Angeles and Tokyo; `until` 2026-02-20T00:00Z is exclusive: the
      // instant before it is Feb 19 in Los Angeles but Feb 20 in Tokyo
      const instants = await summary({ since: '2026-02-10T12:00:00Z', until: '2026-02-20T00:00:00Z' });
      expect(instants.windows.find((w: any) => w.marketplace_id === US)).to.include({
        since: '2026-02-10',
        until: '2026-02-19',
        days: 10,
      });
      expect(instants.windows.find((w: any) => w.marketplace_id === JP)).to.include({
        since: '2026-02-10',
        until: '2026-02-20',
        days: 11,
      });
      expect(numbers(rowOf(instants.rows, US))).to.deep.equal(figures(confirmedIn(US, '2026-02-10', '2026-02-19')));
      expect(numbers(rowOf(instants.rows, JP))).to.deep.equal(figures(confirmedIn(JP, '2026-02-10', '2026-02-20')));
    });

    it('an order placed before 08:00Z belongs to the previous local day in the US (Pacific time)', async () => {
      // an order of February (PST, UTC-8) placed between 00:00Z and 08:00Z of its UTC day
      const edge = confirmedIn(US, '2026-02-01', '2026-02-27').find((o) => o.purchasedAt % DAY_MS < 8 * 3_600_000)!;
      expect(edge, 'the simulator has an order in the US early UTC hours').to.not.equal(undefined);
      const utcDay = utcDate(edge.purchasedAt);
      const localDay = addDays(utcDay, -1);
      expect(localDate(edge.purchasedAt, 'America/Los_Angeles')).to.equal(localDay);
      const onLocal = await summary({ since: localDay, until: localDay, marketplace_id: US });
      const onUtc = await summary({ since: utcDay, until: utcDay, marketplace_id: US });
      const local = confirmedIn(US, localDay, localDay);
      const utc = confirmedIn(US, utcDay, utcDay);
      expect(local).to.include(edge);
      expect(utc).to.not.include(edge);
      expect(numbers(onLocal.rows[0])).to.deep.equal(figures(local));
      expect(utc.length === 0 ? onUtc.rows : numbers(onUtc.rows[0])).to.deep.equal(
        utc.length === 0 ? [] : figures(utc),
      );
      // the edge order's lines are in its local day's per-listing rows
      const line = edge.lines[0]!;
      const rows = (
        await byListingTool({ since: localDay, until: localDay, marketplace_id: US, sku: line.listing.sku })
      ).rows;
      expect(rows).to.have.length(1);
      expect(rows[0].units).to.equal(
        byListing(US, localDay, localDay).get(`${US}/${line.listing.asin}/${line.listing.sku}`)!.units,
      );
      expect(rows[0].units).to.be.at.least(line.quantity);
    });

    it('a canceled order never counts', async () => {
      const canceled = ordersIn(US, '2026-01-01', '2026-03-10').find((o) => o.status === 'Canceled')!;
      expect(canceled, 'the simulator has a canceled order').to.not.equal(undefined);
      const day = localDate(canceled.order.purchasedAt, tz(US));
      const line = canceled.order.lines[0]!;
      const body = await byListingTool({ since: day, until: day, marketplace_id: US, sku: line.listing.sku });
      const expected = byListing(US, day, day).get(`${US}/${line.listing.asin}/${line.listing.sku}`);
      expect(body.rows.length === 0 ? null : body.rows[0].units).to.equal(expected?.units ?? null);
      const all = await summary({ since: day, until: day, marketplace_id: US });
      const confirmed = confirmedIn(US, day, day);
      expect(all.rows.map(numbers)).to.deep.equal(confirmed.length === 0 ? [] : [figures(confirmed)]);
      expect(figures([...confirmed, canceled.order]).revenue).to.be.greaterThan(figures(confirmed).revenue);
    });

    it('compare_to_previous adds the window of the same length just before', async () => {
      const body = await summary({ since: '2026-02-11', until: '2026-02-20', compare_to_previous: true });
      expect(body.previous.windows.find((w: any) => w.marketplace_id === US)).to.include({
        since: '2026-02-01',
        until: '2026-02-10',
        days: 10,
      });
      for (const m of marketplaces()) {
        expect(numbers(rowOf(body.rows, m)), m).to.deep.equal(figures(confirmedIn(m, '2026-02-11', '2026-02-20')));
        expect(numbers(rowOf(body.previous.rows, m)), m).to.deep.equal(
          figures(confirmedIn(m, '2026-02-01', '2026-02-10')),
        );
      }
      expect(await summary({ since: '2026-02-11', until: '2026-02-20' })).to.not.have.property('previous');
    });

    it('windows are capped at 400 days; unreadable or inverted windows are invalid_window', async () => {
      const ok = await call(client, 'get_sales_summary', { since: '2025-01-10', until: '2026-02-13' });
      expect(ok.isError ?? false).to.equal(false);
      expect(ok.structuredContent.windows[0].days).to.equal(400);
      for (const args of [
        { since: '2025-01-09', until: '2026-02-13' },
        { since: '2026-02-10', until: '2026-02-01' },
        { since: 'last week' },
      ]) {
        const res = await call(client, 'list_sales_by_listing', { ...args, order_by: 'units' });
        expect(res.isError, JSON.stringify(args)).to.equal(true);
        expect(res.structuredContent.code).to.equal('invalid_window');
      }
      const bad = await call(client, 'get_sales_summary', { marketplace_id: 'NOPE' });
      expect(bad.structuredContent).to.include({ code: 'invalid' });
      expect(bad.structuredContent.detail).to.match(/marketplace_id: 'NOPE'/);
    });
  });

  describe('list_sales_by_listing', () => {
    it('ordering by revenue across currencies needs marketplace_id; the detail names the currencies', async () => {
      const res = await call(client, 'list_sales_by_listing', {});
      expect(res.isError).to.equal(true);
      expect(res.structuredContent.code).to.equal('marketplace_required');
      const currencies = [
        ...new Set(h.simulator.seller.participations.map((p) => p.marketplace.defaultCurrencyCode)),
      ].sort();
      expect(currencies.length).to.be.greaterThan(1);
      for (const c of currencies) expect(res.structuredContent.detail).to.include(c);
      expect(res.structuredContent.currencies).to.deep.equal(currencies);
    });

    it('by revenue in one marketplace: one row per (ASIN, SKU) with revenue, units and orders, best first; total before limit', async () => {
      const body = await byListingTool({ marketplace_id: JP, limit: 100 });
      const w = body.windows[0];
      expect(body.windows).to.have.length(1);
      const expected = byListing(JP, w.since, w.until);
      expect(body.total).to.equal(expected.size);
      expect(body.rows).to.have.length(Math.min(100, expected.size));
      for (const r of body.rows) {
        expect({ revenue: r.revenue, units: r.units, orders: r.orders, currency: r.currency }, r.sku).to.deep.equal(
          expected.get(`${JP}/${r.asin}/${r.sku}`),
        );
        expect(r).to.include({ account_id: account, marketplace_id: JP });
      }
      const revenues = body.rows.map((r: any) => r.revenue);
      expect(revenues).to.deep.equal([...revenues].sort((a, b) => b - a));
      const limited = await byListingTool({ marketplace_id: JP, limit: 3 });
      expect(limited.rows).to.have.length(3);
      expect(limited.total).to.equal(expected.size);
      expect(limited.rows).to.deep.equal(body.rows.slice(0, 3));
    });

    it('order_by units works across currencies and marketplaces', async () => {
      const body = await byListingTool({ order_by: 'units', limit: 100 });
      const expected = new Map(
        marketplaces().flatMap((m) => {
          const w = body.windows.find((x: any) => x.marketplace_id === m);
          return [...byListing(m, w.since, w.until)];
        }),
      );
      expect(body.total).to.equal(expected.size);
      expect(new Set(body.rows.map((r: any) => r.currency)).size).to.be.greaterThan(1);
      const units = body.rows.map((r: any) => r.units);
      expect(units).to.deep.equal([...units].sort((a, b) => b - a));
      expect(units[0]).to.equal(Math.max(...[...expected.values()].map((e) => e.units)));
      for (const r of body.rows)
        expect(r.units).to.equal(expected.get(`${r.marketplace_id}/${r.asin}/${r.sku}`)!.units);
    });

    it("asin and sku filter exactly; titles are the listings' current ones", async () => {
      const body = await byListingTool({ marketplace_id: US, limit: 100 });
      const top = body.rows[0];
      const listing = h.simulator.catalog.listingsIn(US);
      const live = [...listing].find((l) => l.sku === top.sku)!;
      expect(top.title).to.equal(h.simulator.selling.listings.live(live).title);
      const bySku = await byListingTool({ marketplace_id: US, sku: top.sku });
      expect(bySku.rows).to.deep.equal([top]);
      const byAsin = await byListingTool({ marketplace_id: US, asin: top.asin });
      expect(byAsin.rows.every((r: any) => r.asin === top.asin)).to.equal(true);
      expect(byAsin.rows).to.deep.include(top);
    });
    it('rows, total and order are those of the orders, ties broken by account, marketplace, ASIN and SKU, over a short window and a long one', async () => {
      // 300 of the year's days: fewer lines fall outside than inside, so the read takes the
      // all-time sums less the lines outside; 30 days (the default) reads the window's lines
      const since = utcDate(h.clock.ms - 299 * DAY_MS);
      const ranked = (rows: Array<Record<string, any>>, order_by: 'revenue' | 'units') => {
        const [a, b] = order_by === 'revenue' ? ['revenue', 'units'] : ['units', 'revenue'];
        const text = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
        return [...rows].sort(
          (x, y) =>
            y[a] - x[a] ||
            y[b] - x[b] ||
            text(x.marketplace_id, y.marketplace_id) ||
            text(x.asin, y.asin) ||
            text(x.sku, y.sku),
        );
      };
      for (const [args, limit] of [
        [{ marketplace_id: JP, order_by: 'revenue' }, 7],
        [{ marketplace_id: JP, order_by: 'units', since }, 7],
        [{ marketplace_id: US, order_by: 'revenue', since }, 5],
        [{ order_by: 'units', since }, 9],
        [{ order_by: 'units' }, 30],
      ] as const) {
        const body = await byListingTool({ ...args, limit });
        const expected = ranked(
          body.windows.flatMap((w: any) =>
            [...byListing(w.marketplace_id, w.since, w.until)].map(([key, figures]) => {
              const [marketplace_id, asin, sku] = key.split('/');
              return { marketplace_id, asin, sku, ...figures };
            }),
          ),
          args.order_by,
        );
        expect(body.total, JSON.stringify(args)).to.equal(expected.length);
        expect(expected.length, 'more rows than the page').to.be.greaterThan(limit);
        expect(
          body.rows.map((r: any) => ({
            marketplace_id: r.marketplace_id,
            asin: r.asin,
            sku: r.sku,
            revenue: r.revenue,
            units: r.units,
            orders: r.orders,
            currency: r.currency,
          })),
          JSON.stringify(args),
        ).to.deep.equal(expected.slice(0, limit));
      }
    });
    it('rows tied on both sums at the end of the page come in marketplace, ASIN and SKU order, whichever way the windows are read', async () => {
      // an account of this test's own, its order lines written as the orders projection holds them
      const seller = newId();
      const CA = 'A2EUQ1WTGCTBG2';
      type Line = [asin: string, sku: string, price: number | null, quantity: number];
      const write = (marketplace: string, day: string, lines: Line[]) =>
        h.db.transaction(async (trx) => {
          const scope = `${marketplace}/${day}`;
          await trx(`rm.${ORDER_LINES_TABLE}`).insert(
            lines.map(([asin, sku, price, quantity], row) => ({
              account_id: seller,
              scope,
              page: 0,
              row,
              order_id: newId(),
              amazon_order_id: `111-${marketplace}-${day}-${row}`,
              purchased_at: `${day}T18:00:00Z`,
              order_status: 'Shipped',
              is_business_order: false,
              marketplace_id: marketplace,
              currency: marketplace === US ? 'USD' : 'CAD',
              order_item_id: String(row),
              asin,
              sku,
              price,
              quantity,
            })),
          );
          await recordOrderScope(trx, 'rm', { account_id: seller, scope, pages: 1 });
          await refreshSales(trx, 'rm', [{ account_id: seller, scope }], {
            orders: ORDERS_TABLE,
            lines: ORDER_LINES_TABLE,
          });
        });
      // rows without events: gone again before any other test rebuilds the orders projection
      try {
        await write(US, '2026-03-01', [
          ['B2', 'T-c', 300, 2],
          ['B0', 'L2', 900, 5],
          ['B3', 'T-a', 300, 2],
          ['B1', 'T-e', 300, 2],
          ['B9', 'N', null, 2],
          ['B1', 'T-b', 300, 2],
          ['B0', 'L1', 600, 6],
          ['B2', 'T-d', 300, 2],
          ['B0', 'S', 100, 1],
        ]);
        await write(CA, '2026-03-01', [
          ['B1', 'T-f', 300, 2],
          ['B0', 'C1', 700, 6],
        ]);
        const scopes = [US, CA].map((marketplace_id) => ({
          account_id: seller,
          marketplace_id,
          time_zone: tz(marketplace_id),
          first: '2026-03-01',
          last: '2026-03-01',
        }));
        // CA's id sorts before the US's
        const expected = {
          units: ['C1', 'L1', 'L2', 'T-f', 'T-b', 'T-e', 'T-c', 'T-d', 'T-a', 'N', 'S'],
          revenue: ['L2', 'C1', 'L1', 'T-f', 'T-b', 'T-e', 'T-c', 'T-d', 'T-a', 'S', 'N'],
        };
        const check = async () => {
          for (const order_by of ['units', 'revenue'] as const)
            for (let limit = 1; limit <= 11; limit++) {
              const page = await salesByListing(h.db, scopes, { order_by, limit });
              expect(page.total).to.equal(11);
              expect(page.currencies).to.deep.equal(['CAD', 'USD']);
              expect(
                page.rows.map((r) => r.sku),
                `${order_by}, limit ${limit}`,
              ).to.deep.equal(expected[order_by].slice(0, limit));
            }
        };
        // every line is inside the windows: the all-time sums less the lines outside (none)
        await check();
        // as many days outside the windows as inside: the windows' own lines, each marketplace
        // summed apart and the two pages merged
        for (const marketplace of [US, CA])
          await write(
            marketplace,
            '2026-03-02',
            Array.from({ length: 20 }, (): Line => ['B5', 'X', 100, 1]),
          );
        await check();
      } finally {
        for (const table of ordersProjection.tables) await h.db(`rm.${table}`).where({ account_id: seller }).delete();
      }
    });
  });

  describe('freshness', () => {
    it('reports per account and marketplace the first and last order held and no orders without items', async () => {
      const body = await summary();
      expect(body.freshness).to.have.length(marketplaces().length);
      for (const f of body.freshness) {
        const held = ordersIn(f.marketplace_id, '2025-03-01', '2026-03-11').map((o) => o.order.purchasedAt);
        // the orders sync reads the UTC days of the past 365
        const firstDay = (Math.floor(h.clock.ms / DAY_MS) - 364) * DAY_MS;
        const synced = held.filter((t) => t >= firstDay);
        expect(f).to.include({ account_id: account, orders_without_items: 0 });
        expect(Date.parse(f.earliest_order_at)).to.equal(Math.min(...synced));
        expect(Date.parse(f.last_order_at)).to.equal(Math.max(...synced));
      }
    });

    /** Records a US day's orders as read now through the real client, each order passed through `change` first. */
    async function recordUsDay(
      day: number,
      change: (order: Order & { OrderItems: unknown[] }) => Order & { OrderItems: unknown[] },
    ): Promise<void> {
      const date = utcDate(day * DAY_MS);
      const selling = createSellingClient({
        endpoint: h.simulator.endpoints().sellingApiUrl,
        lwa: h.deps(SELLER).lwa,
        refreshToken: SELLER,
      });
      async function* pages(): AsyncIterable<unknown[]> {
        for await (const orders of selling.orders.getOrders({
          marketplaceIds: [US],
          createdAfter: `${date}T00:00:00Z`,
          createdBefore: `${date}T23:59:59Z`,
        })) {
          yield await Promise.all(
            orders.map(async (o: Order) =>
              change({ ...o, OrderItems: await selling.orders.getOrderItems(o.AmazonOrderId) }),
            ),
          );
        }
      }
      await syncScope(
        h.deps(SELLER).ctx,
        { account_id: account, dataset: 'orders', scope: `${US}/${date}` },
        pages(),
        () => new Date(h.clock.ms),
      );
      await h.projector.whenCaughtUp();
    }
    const shippedOn = (day: number) =>
      h.simulator.selling.orders.ordersOn(day, US).filter((o) => orderAsOf(o, h.clock.ms).status === 'Shipped');

    it('a confirmed order read without its items shows in orders_without_items (its sales are missing) until it is read again', async () => {
      const day = Math.floor(h.clock.ms / DAY_MS) - 3;
      const target = shippedOn(day)[0]!;
      const before = await summary({ marketplace_id: US });
      await recordUsDay(day, (o) => (o.AmazonOrderId === target.amazonOrderId ? { ...o, OrderItems: [] } : o));
      const after = await summary({ marketplace_id: US });
      expect(after.freshness).to.have.length(1);
      expect(after.freshness[0]).to.include({ marketplace_id: US, orders_without_items: 1 });
      expect(after.rows[0].revenue).to.equal(before.rows[0].revenue - figures([target]).revenue);
      expect(after.rows[0].orders).to.equal(before.rows[0].orders - 1);

      await h.run(ordersSync, account, SELLER);
      const healed = await summary({ marketplace_id: US });
      expect(healed.freshness[0].orders_without_items).to.equal(0);
      expect(healed.rows).to.deep.equal(before.rows);
    });

    it('statuses match whatever their case; a pending order counts in pending_orders, not in sales', async () => {
      const day = Math.floor(h.clock.ms / DAY_MS) - 4;
      const [upper, pending] = shippedOn(day);
      expect(pending, 'two shipped orders that day').to.not.equal(undefined);
      const before = await summary({ marketplace_id: US });
      expect(before.freshness[0].pending_orders).to.equal(
        ordersIn(US, before.windows[0].since, before.windows[0].until).filter((o) => o.status === 'Pending').length,
      );
      await recordUsDay(day, (o) =>
        o.AmazonOrderId === upper!.amazonOrderId
          ? { ...o, OrderStatus: 'SHIPPED' }
          : o.AmazonOrderId === pending!.amazonOrderId
            ? { ...o, OrderStatus: 'pending', OrderItems: [] }
            : o,
      );
      const after = await summary({ marketplace_id: US });
      expect(after.rows[0].revenue).to.equal(before.rows[0].revenue - figures([pending!]).revenue);
      expect(after.freshness[0]).to.include({
        pending_orders: before.freshness[0].pending_orders + 1,
        orders_without_items: 0,
      });
      await h.run(ordersSync, account, SELLER);
      expect((await summary({ marketplace_id: US })).rows).to.deep.equal(before.rows);
    });

    it('limit is at most 100; unknown arguments are refused', async () => {
      expect(
        (await call(client, 'list_sales_by_listing', { order_by: 'units', limit: 101 })).structuredContent,
      ).to.include({ code: 'invalid' });
      expect((await call(client, 'get_sales_summary', { order_by: 'units' })).structuredContent).to.include({
        code: 'unknown_argument',
      });
    });
  });

  describe('accounts', () => {
    it('several accounts of one user: a row per account and marketplace, each with its name; account narrows', async () => {
      const second = await h.connect('seller', user);
      await h.run(ordersSync, second, SELLER);
      const body = await summary();
      expect(body.rows).to.have.length(2 * marketplaces().length);
      expect(body.freshness).to.have.length(2 * marketplaces().length);
      for (const m of marketplaces())
        expect(numbers(rowOf(body.rows, m, second))).to.deep.equal(numbers(rowOf(body.rows, m, account)));
      const one = await summary({ account: second });
      expect(new Set(one.rows.map((r: any) => r.account_id))).to.deep.equal(new Set([second]));
      // the same currency in both accounts: revenue ranks across accounts
      const us = await byListingTool({ marketplace_id: US, limit: 100 });
      expect(new Set(us.rows.map((r: any) => r.account_id))).to.deep.equal(new Set([account, second]));
    });

    it('a vendor account is skipped without `account` and not_connected when named; no selling connection, no freshness', async () => {
      const mixed = newId();
      const seller = await h.connect('seller', mixed);
      const vendor = await h.connect('vendor', mixed);
      const as = await serving.clientFor(mixed);
      const body = await summary({}, as);
      expect(body.rows).to.deep.equal([]);
      expect(new Set(body.freshness.map((f: any) => f.account_id))).to.deep.equal(new Set([seller]));
      const named = await call(as, 'get_sales_summary', { account: vendor });
      expect(named.structuredContent.code).to.equal('not_connected');
      const nobody = await summary({}, await serving.clientFor(newId()));
      expect(nobody).to.deep.equal({ windows: [], rows: [] });
    });

    it('a vendor-only user does not see the sales tools, and calling one is not_connected', async () => {
      const vendorUser = newId();
      await h.connect('vendor', vendorUser);
      const as = await serving.clientFor(vendorUser);
      const names = (await as.listTools()).tools.map((t) => t.name);
      expect(names).to.not.include('get_sales_summary');
      expect(names).to.not.include('list_sales_by_listing');
      expect((await client.listTools()).tools.map((t) => t.name)).to.include.members([
        'get_sales_summary',
        'list_sales_by_listing',
      ]);
      for (const tool of ['get_sales_summary', 'list_sales_by_listing'])
        expect((await call(as, tool)).structuredContent.code, tool).to.equal('not_connected');
    });
  });

  describe('deleted listings', () => {
    it('keep their sales, with a null title', async () => {
      const body = await byListingTool({ marketplace_id: JP, account });
      const top = body.rows[0];
      expect(top.title).to.not.equal(null);
      h.simulator.selling.listings.remove(top.sku, JP);
      await h.run(listingsSync, account, SELLER);
      const after = await byListingTool({ marketplace_id: JP, account });
      expect(after.rows[0]).to.deep.equal({ ...top, title: null });
      expect(after.rows.slice(1)).to.deep.equal(body.rows.slice(1));
    });
  });
});
