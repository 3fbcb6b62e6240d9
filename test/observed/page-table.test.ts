import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { ordersProjection } from '../../src/projections/observed/orders.js';
import { pagedProjection } from '../../src/projections/observed/page-table.js';
import { applyEvents } from '../../src/projections/apply.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { assertBatchEqualsOneByOne, inStream, recordedEvents } from '../support/projections.js';

// A page table's set-based batch (replacePages): the pages of a batch replace their rows in one
// delete and as few inserts as PostgreSQL's 65,535 parameters allow, and leave the rows one page
// at a time leaves, a page observed twice in the batch included.

const ACCOUNT = randomUUID();
const uniqueName = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;
const WIDE = Array.from({ length: 24 }, (_, i) => `c${i}`);

const projection = pagedProjection({
  name: uniqueName('pages'),
  version: 1,
  datasets: ['widgets', 'gadgets'],
  table: 'widget_rows',
  withDataset: true,
  columns: { ...Object.fromEntries(WIDE.map((c) => [c, 'integer'])), label: 'text null' },
  rows: (page) =>
    page.rows.map((raw) => {
      const { n, label } = raw as { n: number; label?: string };
      return n < 0 ? null : { ...Object.fromEntries(WIDE.map((c, i) => [c, n + i])), label: label ?? null };
    }),
});

const page = (dataset: string, scope: string, n: number, rows: unknown[], account = ACCOUNT) => ({
  type: 'PageObserved',
  data: {
    account_id: account,
    dataset,
    scope,
    page: n,
    hash: '0'.repeat(64),
    rows,
    observed_at: '2026-11-01T00:00:00.000Z',
  },
});

const order = (id: string, sku: string, amount: string, quantity: number) => ({
  AmazonOrderId: id,
  PurchaseDate: '2026-11-01T15:00:00Z',
  OrderStatus: 'Shipped',
  MarketplaceId: 'ATVPDKIKX0DER',
  OrderTotal: { CurrencyCode: 'USD', Amount: amount },
  OrderItems: [
    {
      OrderItemId: `${id}-1`,
      ASIN: `B0${sku}`,
      SellerSKU: sku,
      QuantityOrdered: quantity,
      ItemPrice: { CurrencyCode: 'USD', Amount: amount },
    },
  ],
});

const listing = (sku: string, title: string) => ({
  sku,
  summaries: [{ marketplaceId: 'ATVPDKIKX0DER', asin: `B0${sku}`, itemName: title, status: ['BUYABLE'] }],
});

const numbered = (count: number, from = 0) => Array.from({ length: count }, (_, i) => ({ n: from + i }));

describe('observed page tables: a batch of pages', () => {
  let db: Knex;
  before(() => {
    db = createDb(process.env.DATABASE_URL!);
  });
  after(() => db.destroy());

  it('a page observed twice keeps its last rows; same scope and page of another dataset stay apart; null rows skipped', async () => {
    const events = recordedEvents(
      inStream(`observation-${ACCOUNT}`, [
        page('widgets', 'US/2026-11-01', 0, numbered(5)),
        page('gadgets', 'US/2026-11-01', 0, numbered(3, 100)),
        page('widgets', 'US/2026-11-01', 1, [{ n: 7, label: 'first' }, { n: -1 }]),
        page('widgets', 'US/2026-11-01', 0, [{ n: 42, label: 'again' }]),
        page('widgets', 'US/2026-11-02', 0, []),
      ]),
    );
    await assertBatchEqualsOneByOne(db, projection, events);
  });

  it('rows past the parameter limit of one statement go in several inserts, and every row lands', async () => {
    // 3 pages × 1,000 rows × 30 columns: 90,000 values, more than one statement may bind (the
    // batch-equals check calls applyMany itself, so the chunked path can't fall back unseen)
    const events = recordedEvents(
      inStream(
        `observation-${ACCOUNT}`,
        [0, 1, 2].map((n) => page('widgets', 'DE/2026-11-01', n, numbered(1000, n))),
      ),
    );
    await assertBatchEqualsOneByOne(db, projection, events);
    const schema = uniqueName('pages_count');
    await db.raw('create schema ??', [schema]);
    try {
      await projection.createTables(db, schema);
      await db.transaction((trx) => applyEvents(trx, projection, events, schema));
      const { rows } = await db.raw('select page, count(*)::int as n from ??.widget_rows group by page order by page', [
        schema,
      ]);
      expect(rows).to.deep.equal([0, 1, 2].map((p) => ({ page: p, n: 1000 })));
    } finally {
      await db.raw('drop schema ?? cascade', [schema]);
    }
  });

  it('orders: both pages of a complete scope restated in one batch refresh the sales of both', async () => {
    // the scope complete with two pages, then (a re-read of the trailing days) both pages changed
    // and no new page count: each page's sales lines must follow its own new rows
    const scope = 'ATVPDKIKX0DER/2026-11-01';
    const completed = {
      type: 'SyncCompleted',
      data: { account_id: ACCOUNT, dataset: 'orders', scope, pages: 2, observed_at: '2026-11-01T00:00:00.000Z' },
    };
    const events = recordedEvents(
      inStream(`observation-${ACCOUNT}`, [
        page('orders', scope, 0, [order('111-1', 'A', '10.00', 1)]),
        page('orders', scope, 1, [order('111-2', 'B', '20.00', 2)]),
        completed,
        page('orders', scope, 0, [order('111-1', 'A', '12.50', 3)]),
        page('orders', scope, 1, [order('111-2', 'B', '21.00', 4), order('111-3', 'C', '5.00', 1)]),
      ]),
    );
    // the restated pages as one batch after the first three, and all five one at a time
    await assertBatchEqualsOneByOne(db, ordersProjection, events, { given: 3 });
  });

  it('listings: SKUs that move between pages or leave, in one batch, leave listing_current as one page at a time', async () => {
    // the marketplace complete with two pages, then a re-read where B moves from page 0 to page 1,
    // C leaves and D arrives, with no new page count: the SKUs a page held before must be re-picked
    // too (B's current row is now on page 1, C has none), then a read one page shorter
    const scope = 'ATVPDKIKX0DER';
    const completed = (pages: number) => ({
      type: 'SyncCompleted',
      data: { account_id: ACCOUNT, dataset: 'listings', scope, pages, observed_at: '2026-11-01T00:00:00.000Z' },
    });
    const events = recordedEvents(
      inStream(`observation-${ACCOUNT}`, [
        page('listings', scope, 0, [listing('A', 'a'), listing('B', 'b')]),
        page('listings', scope, 1, [listing('C', 'c')]),
        completed(2),
        page('listings', scope, 0, [listing('A', 'a2')]),
        page('listings', scope, 1, [listing('B', 'b2'), listing('D', 'd')]),
        page('listings', scope, 0, [listing('A', 'a3'), listing('E', 'e')]),
        completed(1),
      ]),
    );
    await assertBatchEqualsOneByOne(db, listingsProjection, events.slice(0, 6), { given: 3 });
    await assertBatchEqualsOneByOne(db, listingsProjection, events, { given: 3 });
    // and what both leave is right: C gone, B current on its new page; then only page 0 counts
    const current = async (applied: typeof events) => {
      const schema = uniqueName('listings_current');
      await db.raw('create schema ??', [schema]);
      try {
        await listingsProjection.createTables(db, schema);
        // one event at a time: each page re-picks the SKUs it held or holds
        await db.transaction(async (trx) => {
          for (const event of applied) await listingsProjection.apply(trx, event, schema);
        });
        const { rows } = await db.raw('select sku, page, title from ??.listing_current order by sku', [schema]);
        const { rows: scopes } = await db.raw('select listings from ??.listing_scopes', [schema]);
        return { rows, listings: scopes[0]?.listings };
      } finally {
        await db.raw('drop schema ?? cascade', [schema]);
      }
    };
    expect(await current(events.slice(0, 6))).to.deep.equal({
      rows: [
        { sku: 'A', page: 0, title: 'a3' },
        { sku: 'B', page: 1, title: 'b2' },
        { sku: 'D', page: 1, title: 'd' },
        { sku: 'E', page: 0, title: 'e' },
      ],
      listings: 4,
    });
    expect(await current(events)).to.deep.equal({
      rows: [
        { sku: 'A', page: 0, title: 'a3' },
        { sku: 'E', page: 0, title: 'e' },
      ],
      listings: 2,
    });
  });

  it('listings: a batch keeps a target for every SKU its pages name, across accounts and marketplaces', async () => {
    // X is named only by a page the same batch replaces: one at a time it got its target, which stays
    const other = randomUUID();
    const events = recordedEvents(
      inStream(`observation-${ACCOUNT}`, [
        page('listings', 'ATVPDKIKX0DER', 0, [listing('X', 'x')], ACCOUNT),
        page('listings', 'ATVPDKIKX0DER', 0, [listing('Z', 'z')], other),
        page('listings', 'ATVPDKIKX0DER', 0, [listing('Y', 'y')], ACCOUNT),
        page('listings', 'A2EUQ1WTGCTBG2', 0, [listing('W', 'w')], ACCOUNT),
        {
          type: 'SyncCompleted',
          data: {
            account_id: ACCOUNT,
            dataset: 'listings',
            scope: 'ATVPDKIKX0DER',
            pages: 1,
            observed_at: '2026-11-01T00:00:00.000Z',
          },
        },
      ]),
    );
    await assertBatchEqualsOneByOne(db, listingsProjection, events);
    const schema = uniqueName('listing_targets');
    await db.raw('create schema ??', [schema]);
    try {
      await listingsProjection.createTables(db, schema);
      await db.transaction((trx) => listingsProjection.applyMany!(trx, events, schema));
      const { rows } = await db.raw(
        'select account_id, marketplace_id, sku from ??.listing_targets order by account_id = ? desc, marketplace_id, sku',
        [schema, ACCOUNT],
      );
      expect(rows).to.deep.equal([
        { account_id: ACCOUNT, marketplace_id: 'A2EUQ1WTGCTBG2', sku: 'W' },
        { account_id: ACCOUNT, marketplace_id: 'ATVPDKIKX0DER', sku: 'X' },
        { account_id: ACCOUNT, marketplace_id: 'ATVPDKIKX0DER', sku: 'Y' },
        { account_id: other, marketplace_id: 'ATVPDKIKX0DER', sku: 'Z' },
      ]);
      const { rows: current } = await db.raw('select account_id, sku from ??.listing_current order by sku', [schema]);
      expect(current, 'only the completed marketplace of ACCOUNT is current').to.deep.equal([
        { account_id: ACCOUNT, sku: 'Y' },
      ]);
    } finally {
      await db.raw('drop schema ?? cascade', [schema]);
    }
  });
});
