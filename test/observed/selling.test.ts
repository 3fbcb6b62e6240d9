import { expect } from 'chai';
import type { PageObserved } from '../../src/domain/observation/events.js';
import { createSellingClient } from '../../src/marketplace/clients/index.js';
import { LISTINGS_REPORT } from '../../src/marketplace/clients/flat-file.js';
import type { SimListing } from '../../src/marketplace/simulator/index.js';
import { DAY_MS as SIM_DAY_MS, orderAsOf, type SimOrder } from '../../src/marketplace/simulator/selling/orders-book.js';
import { catalogItemsProjection } from '../../src/projections/observed/catalog.js';
import { fbaInventoryProjection } from '../../src/projections/observed/inventory.js';
import { listingRow, listingsProjection } from '../../src/projections/observed/listings.js';
import { ordersProjection } from '../../src/projections/observed/orders.js';
import { wants } from '../../src/projections/projection.js';
import { vCatalogItems } from '../../src/projections/views/v_catalog_items.js';
import { vListings } from '../../src/projections/views/v_listings.js';
import { CONFIRMED_ORDER_STATUSES } from '../../src/projections/observed/sales-rollups.js';
import { vSalesLines } from '../../src/projections/views/v_sales_lines.js';
import { catalogSync } from '../../src/workers/sync/catalog.js';
import { inventorySync } from '../../src/workers/sync/inventory.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { HISTORY_DAYS, ordersSync, TRAILING_DAYS } from '../../src/workers/sync/orders.js';
import { syncScope } from '../../src/workers/sync/scope.js';
import { injectFault, requestsTo, resetSimulator } from '../support/marketplace.js';
import {
  assertApplyTwiceSameResult,
  assertBatchEqualsOneByOne,
  assertRebuildEqualsLive,
} from '../support/projections.js';
import { DAY_MS, startHarness, type Harness } from '../support/observed.js';

// Listings, catalog items, orders and FBA inventory, end to end: the simulator over HTTP,
// the real clients and sync jobs, the event log, the projections and the views as
// query_data reads them. Expected figures come from the simulator's own generators.

const SELLER = 'Atzr|demo-seller';
const US = 'ATVPDKIKX0DER';
const JP = 'A1VC38T7YXB528';
const projections = [listingsProjection, catalogItemsProjection, ordersProjection, fbaInventoryProjection];

describe('selling data: listings, catalog items, orders, FBA inventory → views', function () {
  this.timeout(300_000);
  let h: Harness;
  let account: string;
  const start = Date.parse('2026-03-10T09:00:00Z');
  const marketplaces = () => h.simulator.seller.participations.map((p) => p.marketplace.id);
  const live = (l: SimListing) => h.simulator.selling.listings.live(l);
  const allListings = () => marketplaces().flatMap((m) => [...h.simulator.catalog.listingsIn(m)].map(live));
  const query = async (sql: string) => h.query([account], sql);

  /** Every order the simulator has placed in the synced year, with its status now. */
  const yearOfOrders = (): Array<{ order: SimOrder; status: string }> => {
    const today = Math.floor(h.clock.ms / SIM_DAY_MS);
    const orders = [];
    for (const m of marketplaces()) {
      for (let day = today - HISTORY_DAYS + 1; day <= today; day++) {
        for (const order of h.simulator.selling.orders.ordersOn(day, m)) {
          if (order.purchasedAt <= h.clock.ms) orders.push({ order, status: orderAsOf(order, h.clock.ms).status });
        }
      }
    }
    return orders;
  };
  const confirmed = (status: string) => (CONFIRMED_ORDER_STATUSES as readonly string[]).includes(status);

  const minor = (v: number | null) => (v === null ? null : String(v));
  /** The typed columns of an rm.listings row, and what they should be for a listing. */
  const typedColumns = (row: Record<string, unknown>) => ({
    asin: row.asin,
    title: row.title,
    product_type: row.product_type,
    status: row.status,
    currency: row.currency,
    price: row.price,
    b2b_price: row.b2b_price,
    floor: row.floor,
    ceiling: row.ceiling,
    fulfillment_channel: row.fulfillment_channel,
    condition_type: row.condition_type,
    condition: row.condition,
    handling_time: row.handling_time,
    shipping_group: row.shipping_group,
    quantity: row.quantity,
    restock_date: row.restock_date === null ? null : (row.restock_date as Date).toISOString().slice(0, 10),
    created_at: (row.created_at as Date).toISOString(),
  });
  const expectedColumns = (l: ReturnType<typeof live>) => ({
    asin: l.asin,
    title: l.title,
    product_type: l.productType,
    status: l.status,
    currency: l.currency,
    price: minor(l.price),
    b2b_price: minor(l.b2bPrice),
    floor: minor(l.floor),
    ceiling: minor(l.ceiling),
    fulfillment_channel: l.fulfillmentChannel,
    condition_type: l.conditionType,
    condition: l.conditionFamily,
    handling_time: l.handlingTime,
    shipping_group: l.shippingGroup,
    quantity: l.fulfillmentChannel === 'MFN' ? l.quantity : null,
    restock_date: l.restockDate,
    created_at: l.createdAt,
  });

  before(async () => {
    h = await startHarness(projections, [vListings, vCatalogItems, vSalesLines], start);
    account = await h.connect('seller');
  });
  after(() => h.close());

  describe('listings', () => {
    it('v_listings: one row per SKU per marketplace with the spec columns; deleted listings left out', async () => {
      expect(await h.run(listingsSync, account, SELLER)).to.be.greaterThan(0);
      const { columns, rows } = await query('select * from v_listings order by marketplace_id, sku');
      expect(columns).to.deep.equal(['account_id', 'sku', 'asin', 'marketplace_id', 'title']);
      const expected = allListings().filter((l) => l.status !== 'DELETED');
      expect(rows.map((r) => `${r.marketplace_id}/${r.sku}/${r.asin}/${r.title}`).sort()).to.deep.equal(
        expected.map((l) => `${l.marketplaceId}/${l.sku}/${l.asin}/${l.title}`).sort(),
      );
      expect(
        allListings().some((l) => l.status === 'DELETED'),
        'the demo catalog has a deleted listing',
      ).to.equal(true);
      expect(rows.every((r) => r.account_id === account)).to.equal(true);
    });

    it('a SKU selling in two marketplaces gives two rows; SKUs can share an ASIN', async () => {
      const { rows } = await query(`select sku, count(*)::int as n from v_listings group by sku having count(*) > 1`);
      expect(rows.length).to.be.greaterThan(0);
      const shared = await query(
        `select asin from v_listings where marketplace_id = '${US}' group by asin having count(distinct sku) > 1`,
      );
      expect(shared.rows.length).to.be.greaterThan(0);
    });

    it('a first sync reads the all-listings report, then every page; the report states the same facts, null for what it lacks', async () => {
      const reports = h.simulator.requests
        .list()
        .filter((r) => r.method === 'POST' && r.path === '/reports/2021-06-30/reports')
        .map((r) => (r.body as { reportType: string }).reportType);
      expect(reports.filter((t) => t === LISTINGS_REPORT)).to.have.length(marketplaces().length);
      // each scope's first pages are the report's, its last ones the per-page read's
      const pages = (await h.allEvents())
        .filter((e) => e.type === 'PageObserved')
        .map((e) => e.data as PageObserved)
        .filter((p) => p.dataset === 'listings' && p.account_id === account);
      const first = new Map<string, PageObserved>();
      for (const p of pages) if (!first.has(`${p.scope}/${p.page}`)) first.set(`${p.scope}/${p.page}`, p);
      const fromReport = [...first.values()].flatMap((p) => p.rows.map((raw) => listingRow(raw, p.scope)!));
      const alive = allListings().filter((l) => l.status !== 'DELETED');
      expect(fromReport).to.have.length(alive.length);
      for (const l of alive) {
        const row = fromReport.find((r) => r.sku === l.sku && r.marketplace_id === l.marketplaceId)!;
        expect(
          { ...typedColumns({ ...row, restock_date: null, created_at: new Date(row.created_at as string) }) },
          `${l.marketplaceId}/${l.sku}`,
        ).to.deep.equal({
          ...expectedColumns(l),
          price: l.price,
          b2b_price: l.b2bPrice,
          // the report has no product type, price bounds, handling time or restock date
          product_type: null,
          floor: null,
          ceiling: null,
          handling_time: null,
          restock_date: null,
          // its condition codes don't tell the kinds of new apart
          condition_type: l.conditionFamily === 'new' ? 'new_new' : l.conditionType,
        });
      }
    });

    it('rm.listings: typed columns as the marketplace shows them, money in minor units (JPY whole yen, USD cents)', async () => {
      const rows: Record<string, unknown>[] = await h.db('rm.listings').where({ account_id: account }).select();
      const listings = allListings();
      expect(rows).to.have.length(listings.length);
      for (const l of listings) {
        const row = rows.find((r) => r.sku === l.sku && r.marketplace_id === l.marketplaceId)!;
        expect(typedColumns(row), `${l.marketplaceId}/${l.sku}`).to.deep.equal(expectedColumns(l));
        expect((row.data as { listings_item: { sku: string } }).listings_item.sku).to.equal(l.sku);
      }
      const jp = listings.find((l) => l.marketplaceId === JP)!;
      const us = listings.find((l) => l.marketplaceId === US)!;
      const priceOf = (l: SimListing) =>
        rows.find((r) => r.sku === l.sku && r.marketplace_id === l.marketplaceId)!.price;
      // The wire says e.g. 4800 (yen) and 45.99 (dollars): 4800 and 4599 minor units.
      expect(priceOf(jp)).to.equal(String(jp.price));
      expect(jp.price % 10, 'yen prices are whole tens').to.equal(0);
      expect(priceOf(us)).to.equal(String(us.price));
      expect(us.price % 100, 'dollar prices end in .99').to.equal(99);
      expect(rows.filter((r) => r.status === null).length, 'not yet reported').to.be.greaterThan(0);
      for (const family of ['new', 'used', 'collectible', 'refurbished', 'club'])
        expect(
          rows.some((r) => r.condition === family),
          family,
        ).to.equal(true);
      expect(rows.some((r) => r.b2b_price !== null)).to.equal(true);
    });

    it('a second sync of unchanged listings records nothing', async () => {
      expect(await h.run(listingsSync, account, SELLER)).to.equal(0);
    });

    it('a patch accepted by the marketplace shows at the next sync', async () => {
      const l = allListings().find((x) => x.marketplaceId === JP && x.status !== 'DELETED')!;
      const client = createSellingClient({
        endpoint: h.simulator.endpoints().sellingApiUrl,
        lwa: h.deps(SELLER).lwa,
        refreshToken: SELLER,
      });
      const offer = {
        marketplace_id: JP,
        currency: 'JPY',
        audience: 'ALL',
        our_price: [{ schedule: [{ value_with_tax: 1234 }] }],
      };
      const response = await client.listings.patchListingsItem(h.simulator.seller.merchantId, l.sku, JP, {
        productType: 'PRODUCT',
        patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: [offer] }],
      });
      expect(response.status).to.equal('ACCEPTED');
      expect(await h.run(listingsSync, account, SELLER)).to.equal(1);
      const row = await h.db('rm.listings').where({ account_id: account, sku: l.sku, marketplace_id: JP }).first();
      expect(row.price).to.equal('1234');
    });
  });

  describe('catalog items', () => {
    it('the catalog sync fails, to be retried, until the listings of the account were read', async () => {
      const fresh = await h.connect('seller');
      const error = await h.run(catalogSync, fresh, SELLER).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error)
        .to.be.instanceOf(Error)
        .with.property('message')
        .that.matches(/listings of \w+ have not been read yet/);
    });

    it('v_catalog_items has the listed ASINs before the catalog sync, with gtin null', async () => {
      const { columns, rows } = await query('select * from v_catalog_items');
      expect(columns).to.deep.equal(['account_id', 'asin', 'gtin', 'identifiers', 'marketplace_id', 'title', 'data']);
      const expected = new Set(allListings().map((l) => `${l.marketplaceId}/${l.asin}`));
      expect(rows).to.have.length(expected.size);
      expect(rows.every((r) => r.gtin === null && r.data === null && r.title !== null)).to.equal(true);
    });

    it('the catalog sync fills GTIN-14, identifiers and the raw item; one row per ASIN per marketplace', async () => {
      expect(await h.run(catalogSync, account, SELLER)).to.be.greaterThan(0);
      const { rows } = await query('select * from v_catalog_items order by marketplace_id, asin');
      const expected = new Set(allListings().map((l) => `${l.marketplaceId}/${l.asin}`));
      expect(new Set(rows.map((r) => `${r.marketplace_id}/${r.asin}`))).to.deep.equal(expected);
      expect(rows).to.have.length(expected.size);
      for (const r of rows) {
        const product = h.simulator.catalog.productByAsin(r.asin!)!;
        expect(r.gtin, r.asin!).to.equal(`0${product.ean}`);
        expect(JSON.parse(r.identifiers!)).to.deep.equal([{ identifierType: 'EAN', identifier: product.ean }]);
        expect(r.title).to.equal(product.title);
        expect(JSON.parse(r.data!).asin).to.equal(r.asin);
      }
      expect(await h.run(catalogSync, account, SELLER), 'unchanged catalog').to.equal(0);
    });
  });

  describe('orders', () => {
    let pending: SimOrder;

    it('a first run reads a year: v_sales_lines has every line of confirmed orders, money in minor units', async () => {
      // Stop the clock a minute after an order was placed, so that one is Pending.
      const today = Math.floor(h.clock.ms / DAY_MS);
      pending = h.simulator.selling.orders.ordersOn(today - 1, US).at(-1)!;
      h.clock.ms = pending.purchasedAt + 60_000;
      expect(orderAsOf(pending, h.clock.ms).status).to.equal('Pending');

      expect(await h.run(ordersSync, account, SELLER)).to.be.greaterThan(0);
      const { columns, rows } = await query('select * from v_sales_lines');
      expect(columns).to.deep.equal([
        'account_id',
        'order_id',
        'amazon_order_id',
        'sold_at',
        'order_status',
        'is_business_order',
        'marketplace_id',
        'currency',
        'asin',
        'sku',
        'title',
        'price',
        'quantity',
      ]);
      const orders = yearOfOrders();
      const lines = orders
        .filter((o) => confirmed(o.status))
        .flatMap((o) => o.order.lines.map((line) => ({ ...line, order: o.order, status: o.status })));
      expect(rows).to.have.length(lines.length);
      const byKey = new Map(rows.map((r) => [`${r.amazon_order_id}/${r.sku}`, r]));
      for (const line of lines) {
        const row = byKey.get(`${line.order.amazonOrderId}/${line.listing.sku}`)!;
        expect(row, line.order.amazonOrderId).to.not.equal(undefined);
        expect([
          row.price,
          row.quantity,
          row.currency,
          row.order_status,
          row.marketplace_id,
          row.asin,
          row.is_business_order,
        ]).to.deep.equal([
          String(line.itemPrice),
          String(line.quantity),
          line.order.currency,
          line.status,
          line.order.marketplaceId,
          line.listing.asin,
          line.order.isBusinessOrder ? 't' : 'f',
        ]);
        expect(Date.parse(row.sold_at!)).to.equal(line.order.purchasedAt);
      }
      // Whole yen for JPY: a line's price is the listing price (in yen) times the quantity.
      const jpLine = lines.find((l) => l.order.marketplaceId === JP && !l.order.isBusinessOrder)!;
      expect(byKey.get(`${jpLine.order.amazonOrderId}/${jpLine.listing.sku}`)!.price).to.equal(
        String(jpLine.listing.price * jpLine.quantity),
      );
      const sums = await query(
        `select currency, sum(price)::bigint as total from v_sales_lines group by currency order by currency`,
      );
      const expectedSums = new Map<string, number>();
      for (const l of lines)
        expectedSums.set(l.order.currency, (expectedSums.get(l.order.currency) ?? 0) + l.itemPrice);
      expect(Object.fromEntries(sums.rows.map((r) => [r.currency, Number(r.total)]))).to.deep.equal(
        Object.fromEntries(expectedSums),
      );
      // one order id per amazon order id, stable
      const ids = await query(
        `select count(distinct order_id)::int as ids, count(distinct amazon_order_id)::int as orders from v_sales_lines`,
      );
      expect(ids.rows[0]!.ids).to.equal(ids.rows[0]!.orders);
    });

    it('cancellations and pending orders have no sales lines; rm.orders keeps every order', async () => {
      const orders = yearOfOrders();
      const canceled = orders.filter((o) => o.status === 'Canceled');
      expect(canceled.length).to.be.greaterThan(0);
      const lineOrders = new Set(
        (await query('select distinct amazon_order_id from v_sales_lines')).rows.map((r) => r.amazon_order_id),
      );
      for (const o of canceled) expect(lineOrders.has(o.order.amazonOrderId)).to.equal(false);
      expect(lineOrders.has(pending.amazonOrderId)).to.equal(false);
      const rmOrders: { amazon_order_id: string; order_status: string; line_count: number }[] = await h
        .db('rm.orders')
        .where({ account_id: account })
        .select('amazon_order_id', 'order_status', 'line_count');
      expect(rmOrders).to.have.length(orders.length);
      expect(rmOrders.find((o) => o.amazon_order_id === pending.amazonOrderId)).to.deep.include({
        order_status: 'Pending',
        line_count: 0,
      });
    });

    it('the next run re-reads the trailing days per order; an unchanged re-run records nothing; later runs re-read only the trailing days and pick up status changes', async () => {
      // the report's pages lack fields the Orders API gives: the per-order read records them again
      expect(await h.run(ordersSync, account, SELLER)).to.be.greaterThan(0);
      expect(await h.run(ordersSync, account, SELLER)).to.equal(0);
      await resetSimulator(h.simulator.endpoints().sellingApiUrl);
      h.clock.ms += 3 * 3_600_000;
      expect(await h.run(ordersSync, account, SELLER)).to.be.greaterThan(0);
      const reads = await requestsTo(h.simulator.endpoints().sellingApiUrl, 'GET', '/orders/v0/orders');
      const oldest = Math.min(...reads.map((r) => Date.parse(r.query.CreatedAfter!)));
      expect(oldest).to.equal((Math.floor(h.clock.ms / DAY_MS) - TRAILING_DAYS + 1) * DAY_MS);
      const status = orderAsOf(pending, h.clock.ms).status;
      expect(status).to.not.equal('Pending');
      const row = await h
        .db('rm.orders')
        .where({ account_id: account, amazon_order_id: pending.amazonOrderId })
        .first();
      expect(row.order_status).to.equal(status);
      const lines = await query(
        `select count(*)::int as n from v_sales_lines where amazon_order_id = '${pending.amazonOrderId}'`,
      );
      expect(lines.rows[0]!.n).to.equal(confirmed(status) ? String(pending.lines.length) : '0');
    });
  });

  describe('listing deletion (spec 3.5)', () => {
    it('a listing reported DELETED leaves v_listings; its sales lines stay, with a null title', async () => {
      const sold = await query(
        `select marketplace_id, sku, count(*)::int as n from v_sales_lines where title is not null group by marketplace_id, sku order by n desc limit 1`,
      );
      const { marketplace_id, sku, n } = sold.rows[0]!;
      h.simulator.selling.listings.remove(sku!, marketplace_id!);
      expect(await h.run(listingsSync, account, SELLER)).to.be.greaterThan(0);
      expect(
        (await query(`select * from v_listings where sku = '${sku}' and marketplace_id = '${marketplace_id}'`)).rows,
      ).to.have.length(0);
      const lines = await query(
        `select title from v_sales_lines where sku = '${sku}' and marketplace_id = '${marketplace_id}'`,
      );
      expect(lines.rows).to.have.length(Number(n));
      expect(lines.rows.every((r) => r.title === null)).to.equal(true);
      // every other line has its listing's title exactly when that listing is still listed
      const titled = await query(
        `select count(*)::int as n from v_sales_lines s join v_listings l using (account_id, marketplace_id, sku) where s.title = l.title`,
      );
      const present = await query(`select count(*)::int as n from v_sales_lines where title is not null`);
      expect(titled.rows[0]!.n).to.equal(present.rows[0]!.n);
    });
  });

  describe('FBA inventory', () => {
    it('one row per FBA listing per marketplace, with its quantities', async () => {
      expect(await h.run(inventorySync, account, SELLER)).to.be.greaterThan(0);
      const rows: Record<string, unknown>[] = await h.db('rm.fba_inventory').where({ account_id: account }).select();
      const fba = allListings().filter((l) => l.fulfillmentChannel === 'FBA');
      expect(rows.map((r) => `${r.marketplace_id}/${r.sku}`).sort()).to.deep.equal(
        fba.map((l) => `${l.marketplaceId}/${l.sku}`).sort(),
      );
      for (const r of rows) {
        const parts = [
          'fulfillable_quantity',
          'inbound_working_quantity',
          'inbound_shipped_quantity',
          'inbound_receiving_quantity',
          'reserved_quantity',
          'researching_quantity',
          'unfulfillable_quantity',
        ];
        expect(parts.reduce((sum, c) => sum + (r[c] as number), 0)).to.equal(r.total_quantity);
      }
      expect(await h.run(inventorySync, account, SELLER)).to.equal(0);
    });
  });

  describe('throttling in the middle of paging', () => {
    it('a 429 between pages is retried and every page is recorded once', async () => {
      const base = h.simulator.endpoints().sellingApiUrl;
      await resetSimulator(base);
      const other = await h.connect('seller');
      const client = createSellingClient({
        endpoint: base,
        lwa: h.deps(SELLER).lwa,
        refreshToken: SELLER,
        retry: { minDelayMs: 5, maxDelayMs: 20 },
      });
      const path = `/listings/2021-08-01/items/${h.simulator.seller.merchantId}`;
      async function* throttledAfterFirstPage(pages: AsyncIterable<unknown[]>) {
        let first = true;
        for await (const page of pages) {
          yield page;
          if (first) await injectFault(base, { route: `GET ${path}`, kind: '429', times: 1 });
          first = false;
        }
      }
      const key = { account_id: other, dataset: 'listings', scope: US };
      const result = await syncScope(
        h.deps(SELLER).ctx,
        key,
        throttledAfterFirstPage(
          client.listings.searchListingsItems(h.simulator.seller.merchantId, US, { pageSize: 5 }),
        ),
      );
      const usListings = h.simulator.catalog.marketplaceListingCount(US);
      expect(result.pages).to.equal(Math.ceil(usListings / 5));
      expect(result.recorded).to.equal(result.pages + 1);
      const requests = await requestsTo(base, 'GET', path);
      expect(requests.map((r) => r.status)).to.deep.equal([200, 429, 200, ...Array(result.pages - 2).fill(200)]);
      expect(requests[1]!.query.pageToken).to.equal(requests[2]!.query.pageToken);
      await h.projector.whenCaughtUp();
      const pages = (await h.allEvents())
        .filter((e) => e.type === 'PageObserved' && (e.data as PageObserved).account_id === other)
        .map((e) => (e.data as PageObserved).page);
      expect(pages).to.deep.equal([...Array(result.pages).keys()]);
      const skus = await h.db('rm.listings').where({ account_id: other }).orderBy('sku').pluck('sku');
      expect(skus).to.deep.equal([...h.simulator.catalog.listingsIn(US)].map((l) => l.sku).sort());
    });

    it("the orders sync rides out 429s and 5xx: the sales lines are exactly the simulator's", async () => {
      const base = h.simulator.endpoints().sellingApiUrl;
      await resetSimulator(base);
      h.clock.ms += 2 * 3_600_000;
      await injectFault(base, { route: 'GET /orders/v0/orders', kind: '429', times: 2 });
      await injectFault(base, { route: 'GET /orders/v0/orders/*/orderItems', kind: '5xx', status: 503, times: 2 });
      await h.run(ordersSync, account, SELLER);
      const failed = (await requestsTo(base, 'GET', '/orders/v0/orders')).filter((r) => r.status === 429);
      expect(failed).to.have.length(2);
      const expected = yearOfOrders()
        .filter((o) => confirmed(o.status))
        .flatMap((o) =>
          o.order.lines.map(
            (l) => `${o.order.amazonOrderId}/${l.listing.sku}/${l.itemPrice}/${l.quantity}/${o.status}`,
          ),
        );
      const { rows } = await query('select amazon_order_id, sku, price, quantity, order_status from v_sales_lines');
      expect(
        rows.map((r) => `${r.amazon_order_id}/${r.sku}/${r.price}/${r.quantity}/${r.order_status}`).sort(),
      ).to.deep.equal(expected.sort());
    });
  });

  describe('projections', () => {
    for (const projection of projections) {
      it(`${projection.name}: applying the same events twice changes nothing`, async () => {
        const events = (await h.allEvents()).filter((e) => projection.handles.includes(e.type));
        await assertApplyTwiceSameResult(h.db, projection, events);
      });
      it(`${projection.name}: rebuilt tables equal the live ones`, async () => {
        await h.projector.whenCaughtUp();
        await assertRebuildEqualsLive(h.db, h.store, projection);
      });
      if (projection.applyMany)
        it(`${projection.name}: a batch leaves the rows that one event at a time leaves`, async () => {
          // the first days of the year: its own datasets' pages (the sync jobs of the other datasets
          // interleave theirs) and their scopes' completions, as synced
          const events = (await h.allEvents()).filter((e) => wants(projection, e)).slice(0, 400);
          expect(new Set(events.map((e) => e.type))).to.have.property('size', projection.handles.length);
          await assertBatchEqualsOneByOne(h.db, projection, events);
        });
    }
  });
});
