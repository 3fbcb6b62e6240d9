import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
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

const page = (dataset: string, scope: string, n: number, rows: unknown[]) => ({
  type: 'PageObserved',
  data: {
    account_id: ACCOUNT,
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
});
