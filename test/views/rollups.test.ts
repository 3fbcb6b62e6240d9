import { expect } from 'chai';
import { listingsProjection } from '../../src/projections/observed/listings.js';
import { ordersProjection } from '../../src/projections/observed/orders.js';
import { existingViews, queryViews } from '../../src/projections/views/queries.js';
import { viewDefinitions } from '../../src/projections/views/registry.js';
import { rewriteForRollups, ROLLUPS_SCHEMA } from '../../src/projections/views/rollup-rewrite.js';
import { checkQuery } from '../../src/projections/views/validate.js';
import { vSalesLines } from '../../src/projections/views/v_sales_lines.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import { ordersSync } from '../../src/workers/sync/orders.js';
import { assertApplyTwiceSameResult, assertRebuildEqualsLive } from '../support/projections.js';
import { DAY_MS, startHarness, type Harness } from '../support/observed.js';

// query_data answers aggregate queries over v_sales_lines from its rollups (rollup-rewrite.ts).
// Every query here runs both ways, from the rollup and as written over the lines, on a synced
// simulator year: columns (names and types) and rows must be the same.

const SELLER = 'Atzr|demo-seller';
const US = 'ATVPDKIKX0DER';

/** Aggregate queries a rollup answers, and the rollup that does. */
const ANSWERED: Array<[string, string]> = [
  [
    `select date_trunc('month', sold_at) as month, marketplace_id, currency, sum(price) as revenue, sum(quantity) as units
     from v_sales_lines group by 1, 2, 3 order by 1, 2`,
    'v_sales_lines_by_day',
  ],
  [
    `select sku, marketplace_id, currency, sum(quantity) as units, sum(price) as revenue
     from v_sales_lines group by 1, 2, 3 order by units desc, sku limit 100`,
    'v_sales_lines_by_listing',
  ],
  ['select count(*) from v_sales_lines', 'v_sales_lines_by_day'],
  [`select count(*), sum(price) from v_sales_lines where marketplace_id = 'none'`, 'v_sales_lines_by_day'],
  [
    `select marketplace_id, count(*), count(price), count(sku), count(order_id), avg(price), avg(quantity), sum(quantity)
     from v_sales_lines group by marketplace_id order by 1`,
    'v_sales_lines_by_listing',
  ],
  [
    `select sold_at::date as day, sum(price), round(avg(price)) from v_sales_lines
     where sold_at >= '2026-01-01' and sold_at < current_date - 3 group by 1 order by 1`,
    'v_sales_lines_by_day',
  ],
  [
    `select extract(dow from sold_at) as dow, order_status, is_business_order, sum(quantity), count(*) * 2 as doubled
     from v_sales_lines s group by 1, 2, 3 order by 1, 2, 3`,
    'v_sales_lines_by_day',
  ],
  ['select distinct marketplace_id, currency from v_sales_lines order by 1', 'v_sales_lines_by_day'],
  // ORDER BY the names aggregates get by default: by their positions once rewritten
  [
    'select marketplace_id, sum(quantity), count(*) from v_sales_lines group by 1 order by sum desc, count, 1',
    'v_sales_lines_by_day',
  ],
  [
    `select s.asin, s.title, sum(s.price) as revenue, count(*) from views.v_sales_lines s where s.marketplace_id = '${US}'
     group by 1, 2 having count(*) > 1 order by revenue desc nulls last, 1 limit 20`,
    'v_sales_lines_by_sku',
  ],
  [
    `select date_trunc('week', sold_at) w, sum(price)::numeric / 100 as major, coalesce(currency, '–') as "cur€"
     from v_sales_lines where marketplace_id <> 'é' and '2026-02-01'::date <= sold_at group by w, currency order by w`,
    'v_sales_lines_by_day',
  ],
  [
    `select currency, sum(price) as price, case when sum(quantity) > 10 then 'many' else 'few' end
     from v_sales_lines group by currency order by price desc`,
    'v_sales_lines_by_day',
  ],
];

/** Grouped by listing (marketplace, currency, SKU): for one account, the rollup's rows are the groups. */
const ROWS_ARE_GROUPS = [
  `select sku, marketplace_id, currency, sum(quantity) as units, sum(price) as revenue
   from v_sales_lines group by 1, 2, 3 order by units desc, sku limit 100`,
  `select marketplace_id, sku, count(*), count(price), count(title), avg(price), avg(quantity), sum(price)
   from v_sales_lines group by sku, marketplace_id, currency order by 3 desc, 2, 1 limit 50`,
  `select sku as s, marketplace_id m, currency, sum(quantity) q from v_sales_lines
   where marketplace_id = '${US}' group by s, m, currency order by q desc, s limit 10`,
  `select title, sku, marketplace_id, currency, sum(price) from v_sales_lines
   group by 1, 2, 3, 4 order by 5 desc nulls last, 2 limit 20`,
  `select sku, upper(marketplace_id) from v_sales_lines group by sku, marketplace_id, currency
   order by sum(quantity) desc, avg(price) desc nulls last, sku limit 5`,
  `select distinct marketplace_id, sum(quantity) > 5 as many from v_sales_lines group by sku, marketplace_id, currency order by 1, 2`,
];

/** Grouped queries the same rollup answers by summing its rows again, even for one account. */
const SUMMED = [
  'select sku, marketplace_id, sum(quantity) from v_sales_lines group by 1, 2 order by 3 desc, 1 limit 10',
  `select sku, marketplace_id, currency, sum(quantity) from v_sales_lines group by 1, 2, 3
   having sum(quantity) > 2 order by 4 desc, 1, 2 limit 10`,
  `select lower(sku), marketplace_id, currency, sum(quantity) from v_sales_lines group by 1, 2, 3 order by 4 desc, 1 limit 10`,
];

/** Shapes where a careless rewrite changes the answer or the error (names, aliases, parentheses, DISTINCT). */
const TRICKY = [
  'select sku as group, marketplace_id, currency, count(*) from v_sales_lines group by 1, 2, 3 order by 4 desc, 1, 2, 3 limit 5',
  `(select sku, marketplace_id, currency, sum(price) from v_sales_lines group by 1, 2, 3) order by 4 desc nulls last, 1, 2, 3 limit 5`,
  'select sku as x, currency as x, marketplace_id, sum(price) from v_sales_lines group by x, marketplace_id, currency, sku limit 5',
  'select sku, marketplace_id, currency, sum(price) from v_sales_lines group by 1, 2, 3 order by sum desc nulls last, 1, 2, 3 limit 5',
  'select marketplace_id, sum(quantity) from v_sales_lines group by 1 order by sum desc',
  'select marketplace_id, count(*) from v_sales_lines group by 1 order by count desc, 1',
  'select sku, marketplace_id, currency from v_sales_lines group by sku, marketplace_id, currency, sum',
  `select distinct sku, marketplace_id, currency, count(*) from v_sales_lines group by 1, 2, 3
   order by count(quantity) desc, 1 limit 5`,
];

/** Queries that must run as written: a rollup can't answer them, or the rewrite is not sure it can. */
const AS_WRITTEN = [
  'select * from v_sales_lines limit 5',
  'select marketplace_id from v_sales_lines',
  'select order_id, sum(price) from v_sales_lines group by 1',
  `select date_trunc('hour', sold_at), count(*) from v_sales_lines group by 1`,
  `select sku, sum(price) from v_sales_lines where sold_at >= now() - interval '30 days' group by 1`,
  `select marketplace_id, sum(price) from v_sales_lines where sold_at > '2026-01-01' group by 1`,
  `select marketplace_id, sum(price) from v_sales_lines where sold_at >= '2026-01-01 12:00' group by 1`,
  'select sku, order_status, sum(price) from v_sales_lines group by 1, 2',
  'select count(distinct sku) from v_sales_lines',
  'select sum(price * quantity) from v_sales_lines',
  'select marketplace_id, max(price) from v_sales_lines group by 1',
  `select marketplace_id, count(*) filter (where price > 100) from v_sales_lines group by 1`,
  'with x as (select * from v_sales_lines) select count(*) from x',
  'select l.marketplace_id, count(*) from v_sales_lines l join v_listings v using (sku) group by 1',
  'select sold_at, count(*) from v_sales_lines group by 1',
  'select marketplace_id, sum(price) over () from v_sales_lines',
  'select count(*) as rollup_rows from v_sales_lines group by marketplace_id order by rollup_rows',
  'select marketplace_id, count(*) from v_sales_lines group by 1 union all select null, 1',
  'select marketplace_id, count(*) from v_sales_lines where sku in (select sku from v_listings) group by 1',
  'select count(*) from v_listings',
];

describe('query_data answers from the rollups of v_sales_lines', function () {
  // a year of orders for two accounts, synced through the simulator: slow on a loaded machine
  this.timeout(1_200_000);
  let h: Harness;
  let account: string;
  let other: string;
  let rollups: Set<string>;
  const start = Date.parse('2026-03-10T09:00:00Z');

  /** The query run from its rollup and as written: the same columns, types and rows. */
  async function assertSameAnswer(sql: string, accounts = [account]): Promise<number> {
    const fast = await queryViews(h.db, sql, accounts);
    const slow = await queryViews(h.db, sql, accounts, { rollups: false });
    const shape = (r: typeof fast) => r.columns.map((c) => `${c.name} ${c.type}`);
    expect(shape(fast), sql).to.deep.equal(shape(slow));
    expect(fast.rows, sql).to.deep.equal(slow.rows);
    return slow.rows.length;
  }

  /** The same rows, or the same error, from the rollup and as written. */
  async function assertSameOutcome(sql: string, accounts = [account]): Promise<void> {
    const outcome = (rollupsToo: boolean) =>
      queryViews(h.db, sql, accounts, { rollups: rollupsToo }).then(
        (r) => ({ columns: r.columns.map((c) => `${c.name} ${c.type}`), rows: r.rows }),
        (e: Error) => ({ error: e.message }),
      );
    expect(await outcome(true), sql).to.deep.equal(await outcome(false));
  }

  before(async () => {
    h = await startHarness([listingsProjection, ordersProjection], [vSalesLines], start);
    account = await h.connect('seller');
    other = await h.connect('seller');
    await Promise.all([account, other].map((a) => h.run(listingsSync, a, SELLER)));
    await Promise.all([account, other].map((a) => h.run(ordersSync, a, SELLER)));
    rollups = await existingViews(h.db, ROLLUPS_SCHEMA);
  });
  after(() => h.close());

  it('the rollup views exist beside the views, and query_data cannot name them', async () => {
    expect([...rollups].sort()).to.deep.equal([
      'v_sales_lines_by_day',
      'v_sales_lines_by_listing',
      'v_sales_lines_by_sku',
    ]);
    const err = await queryViews(h.db, `select * from ${ROLLUPS_SCHEMA}.v_sales_lines_by_day`, [account]).catch(
      (e: unknown) => e,
    );
    expect((err as { rule?: string }).rule).to.equal('views_only');
  });

  it('answers each aggregate query from the rollup that has what it reads, with the same result as the lines give', async () => {
    let rows = 0;
    for (const [sql, rollup] of ANSWERED) {
      const { statement } = await checkQuery(sql, await existingViews(h.db));
      const rewritten = rewriteForRollups(statement, viewDefinitions, rollups);
      expect(rewritten, sql).to.be.a('string').and.include(`${ROLLUPS_SCHEMA}."${rollup}"`);
      rows += await assertSameAnswer(sql);
      await assertSameAnswer(sql, [account, other]);
    }
    expect(rows, 'the queries found rows').to.be.greaterThan(ANSWERED.length);
  });

  it("reads a listing rollup's rows as the groups of one account's query by listing, and sums them for two", async () => {
    const views = await existingViews(h.db);
    const summed = /\bgroup\s+by\b/i;
    for (const sql of ROWS_ARE_GROUPS) {
      const { statement } = await checkQuery(sql, views);
      const one = rewriteForRollups(statement, viewDefinitions, rollups, true);
      expect(one, sql).to.be.a('string').and.include(`${ROLLUPS_SCHEMA}."v_sales_lines_by_listing"`);
      expect(one, sql).to.not.match(summed).and.not.include('rollup_sum');
      expect(rewriteForRollups(statement, viewDefinitions, rollups, false), sql).to.match(summed);
      expect(await assertSameAnswer(sql), sql).to.be.greaterThan(0);
      await assertSameAnswer(sql, [account, other]);
    }
    for (const sql of SUMMED) {
      const { statement } = await checkQuery(sql, views);
      expect(rewriteForRollups(statement, viewDefinitions, rollups, true), sql).to.match(summed);
      expect(await assertSameAnswer(sql), sql).to.be.greaterThan(0);
    }
    for (const sql of TRICKY) {
      await assertSameOutcome(sql);
      await assertSameOutcome(sql, [account, other]);
    }
    // title is not grouped by: refused as written, and so from the rollup
    const ungrouped = 'select sku, marketplace_id, currency, title, sum(quantity) from v_sales_lines group by 1, 2, 3';
    const refusal = (rollupsToo: boolean) =>
      queryViews(h.db, ungrouped, [account], { rollups: rollupsToo }).then(
        () => 'answered',
        (e: Error) => e.message,
      );
    expect(await refusal(true))
      .to.equal(await refusal(false))
      .and.match(/must appear in the GROUP BY clause/);
  });

  it('leaves every other query as written', async () => {
    const views = await existingViews(h.db);
    for (const sql of AS_WRITTEN) {
      const { statement } = await checkQuery(sql, views);
      expect(rewriteForRollups(statement, viewDefinitions, rollups), sql).to.equal(null);
    }
  });

  it('stays exact as orders move on and a listing is deleted, for each account apart and together', async () => {
    h.clock.ms += 3 * DAY_MS;
    expect(await h.run(ordersSync, account, SELLER)).to.be.greaterThan(0);
    const sold = await queryViews(
      h.db,
      `select marketplace_id, sku from v_sales_lines where title is not null group by 1, 2 order by count(*) desc limit 1`,
      [account],
    );
    const [marketplace_id, sku] = sold.rows[0]!;
    h.simulator.selling.listings.remove(sku!, marketplace_id!);
    await h.run(listingsSync, account, SELLER);
    for (const sql of [...ANSWERED.map(([q]) => q), ...ROWS_ARE_GROUPS]) {
      await assertSameAnswer(sql);
      await assertSameAnswer(sql, [account, other]);
    }
    const nulls = await queryViews(
      h.db,
      `select count(*) from v_sales_lines where sku = '${sku}' and marketplace_id = '${marketplace_id}' and title is null group by sku`,
      [account],
    );
    expect(Number(nulls.rows[0]![0])).to.be.greaterThan(0);
  });

  it('the sales tables are the sums of the sales lines, per group; applying twice and rebuilding change nothing', async () => {
    const { rows } = await h.db.raw(`select
      (select coalesce(sum(lines), 0) from rm.sales_days) as day_lines,
      (select coalesce(sum(lines), 0) from rm.sales_skus) as sku_lines,
      (select count(*) from rm.sales_lines) as lines,
      (select coalesce(sum(units), 0) from rm.sales_skus) as sku_units,
      (select coalesce(sum(quantity), 0) from rm.sales_lines) as units,
      (select count(*) from rm.sales_skus where lines <= 0) as empty`);
    const r = rows[0] as Record<string, string>;
    expect(Number(r.lines)).to.be.greaterThan(0);
    expect([r.day_lines, r.sku_lines, r.sku_units, r.empty]).to.deep.equal([r.lines, r.lines, r.units, '0']);
    // each sales group (its key) is one row of sales_skus with the sums of its lines, and one group only;
    // each listing's (its sales groups whatever the ASIN) one row of sales_listings
    for (const [table, group, key] of [
      ['sales_skus', 'account_id, marketplace_id, currency, asin, sku', 'key'],
      [
        'sales_listings',
        'account_id, marketplace_id, currency, sku',
        `md5(jsonb_build_array(account_id, marketplace_id, currency, sku)::text)::uuid`,
      ],
    ]) {
      const { rows: apart } = await h.db.raw(`with summed as (
          select ${key} as key, ${group}, count(*)::int as lines, count(price)::int as priced_lines,
            coalesce(sum(price), 0)::bigint as revenue, sum(quantity)::bigint as units from rm.sales_lines group by ${key}, ${group}),
        held as (select key, ${group}, lines, priced_lines, revenue, units from rm.${table})
        select (select count(*) from (select * from summed except all select * from held) x)::int as unsummed,
          (select count(*) from (select * from held except all select * from summed) x)::int as unlined,
          (select count(*) - count(distinct key) from summed)::int as shared_keys,
          (select count(*) from held)::int > 0 as held`);
      expect(apart[0], table).to.deep.equal({ unsummed: 0, unlined: 0, shared_keys: 0, held: true });
    }
    await assertApplyTwiceSameResult(h.db, ordersProjection, await h.allEvents());
    await assertRebuildEqualsLive(h.db, h.store, ordersProjection);
    await assertRebuildEqualsLive(h.db, h.store, listingsProjection);
  });
});
