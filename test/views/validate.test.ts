import { expect } from 'chai';
import { checkQuery, type RefusalRule, SqlRefused } from '../../src/projections/views/validate.js';

// The parser wall on its own: everyday analytical SQL passes, and each rule refuses what
// it is for. The hostile suite (test/mcp/query_data_hostile.test.ts) runs attacks end to end.

const VIEWS = new Set(['v_sales_lines', 'v_marketplaces', 'v_ad_performance']);

async function refusal(sql: string): Promise<SqlRefused> {
  try {
    await checkQuery(sql, VIEWS);
  } catch (err) {
    if (err instanceof SqlRefused) return err;
    throw err;
  }
  throw new Error(`not refused: ${sql}`);
}

describe('query_data SQL check', () => {
  const allowed = [
    'select * from v_marketplaces',
    'select m.name, count(*) from v_sales_lines s join v_marketplaces m using (marketplace_id) group by 1 order by 2 desc nulls last limit 10 offset 5',
    `select date_trunc('month', sold_at) as month, marketplace_id, currency, sum(price) from views.v_sales_lines where sold_at >= now() - interval '90 days' group by rollup (1, 2, 3)`,
    `with monthly as (select date_trunc('month', sold_at)::date as m, sum(price)::bigint as revenue from v_sales_lines group by 1),
          ranked as (select m, revenue, rank() over (order by revenue desc) as r from monthly)
     select * from ranked where r <= 3`,
    `with recursive days(d) as (select current_date - 30 union all select d + 1 from days where d < current_date) select d from days`,
    `select sku, sum(quantity) filter (where order_status ilike 'shipped') as shipped, percentile_cont(0.5) within group (order by price) from v_sales_lines group by sku having count(distinct order_id) > 1`,
    `select distinct on (sku) sku, sold_at, coalesce(title, '(gone)'), nullif(quantity, 0), greatest(price, 0), round(price::numeric / 100, 2) from v_sales_lines order by sku, sold_at desc`,
    `select extract(dow from sold_at at time zone 'America/Los_Angeles'), to_char(sold_at, 'YYYY-MM'), case when price > 1000 then 'big' else 'small' end from v_sales_lines where asin ~ '^B0' and sku is distinct from asin and price between 1 and 10`,
    `select g::date, (select count(*) from v_sales_lines s where s.sold_at::date = g::date) from generate_series(date '2024-01-01', date '2024-01-31', interval '1 day') g`,
    `select x.* from v_sales_lines s, lateral (select s.price * 2 as double) x where exists (select 1 from v_marketplaces m where m.marketplace_id = s.marketplace_id)`,
    `select array_agg(sku order by sold_at), jsonb_build_object('n', count(*)) ->> 'n', string_agg(distinct currency, ',') from v_sales_lines`,
    `select marketplace_id from v_marketplaces union select marketplace_id from v_sales_lines except select 'X' fetch first 10 rows only`,
    `values (1, 'a'), (2, 'b')`,
    `select 1 -- trailing comment`,
    `select 'a?b', $$dollar ? quoted$$ from v_marketplaces;`,
  ];
  for (const sql of allowed) {
    it(`allows ${sql.replace(/\s+/g, ' ').slice(0, 90)}`, async () => {
      const { statement } = await checkQuery(sql, VIEWS);
      expect(statement).to.be.a('string').and.not.match(/;\s*$/);
    });
  }

  it('returns the statement without a trailing semicolon or comment', async () => {
    expect((await checkQuery('select 1 ;  -- bye', VIEWS)).statement).to.equal('select 1');
  });

  const refused: Array<[string, RefusalRule]> = [
    ['selec 1', 'syntax'],
    ['-- only a comment', 'single_statement'],
    ['select 1; select 2', 'single_statement'],
    ['insert into v_marketplaces values (1)', 'select_only'],
    ['set role postgres', 'select_only'],
    ['with d as (delete from v_sales_lines returning *) select * from d', 'select_only'],
    ['select 1 where exists (with d as (update v_sales_lines set sku = 1 returning 1) select 1)', 'select_only'],
    ['select * into t from v_marketplaces', 'no_select_into'],
    ['select * from v_marketplaces for update', 'no_locking'],
    ['select 1 union (select 1 from v_marketplaces for share)', 'no_locking'],
    ['select * from rm.accounts', 'views_only'],
    ['select * from pg_class', 'views_only'],
    ['select * from mydb.views.v_marketplaces', 'views_only'],
    ['with a as (select * from pg_class), pg_class as (select 1) select * from a', 'views_only'],
    ['select * from pg_class, (with pg_class as (select 1) select * from pg_class) x', 'views_only'],
    ['(with x as (select 1) select * from x) union select * from x', 'views_only'],
    ['select pg_sleep(1)', 'function_not_allowed'],
    ['select pg_catalog.set_config($$role$$, $$postgres$$, true)', 'function_not_allowed'],
    ['select public.now()', 'function_not_allowed'],
    ['select current_user', 'function_not_allowed'],
    ["select 'rm.accounts'::regclass", 'type_not_allowed'],
    ['select 1::public.mytype', 'type_not_allowed'],
    ['select * from v_marketplaces tablesample system (10)', 'syntax_not_allowed'],
    ['select $1', 'syntax_not_allowed'],
    ['select 1 operator(pg_catalog.+) 1', 'syntax_not_allowed'],
    ["select xmlelement(name a, 'x')", 'syntax_not_allowed'],
  ];
  for (const [sql, rule] of refused) {
    it(`refuses ${JSON.stringify(sql)} by rule ${rule}`, async () => {
      const err = await refusal(sql);
      expect(err.rule).to.equal(rule);
      expect(err.message).to.be.a('string').and.not.empty;
    });
  }

  it('allows a CTE to shadow a catalog name where it is in scope', async () => {
    await checkQuery('with pg_class as (select 1 as x) select * from pg_class', VIEWS);
    await checkQuery(
      'with recursive pg_class(n) as (select 1 union all select n + 1 from pg_class where n < 3) select * from pg_class',
      VIEWS,
    );
  });
});
