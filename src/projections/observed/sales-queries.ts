import type { Knex } from 'knex';
import { prepared } from '../../infra/db.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { CURRENT_LISTINGS_TABLE } from './listings.js';
import { ORDERS_TABLE } from './orders.js';
import {
  CONFIRMED_ORDER_STATUSES,
  ORDER_SCOPES_TABLE,
  PENDING_ORDER_STATUSES,
  SALES_DAYS_TABLE,
  SALES_LINES_TABLE,
  SALES_SKUS_TABLE,
  statusIn,
} from './sales-rollups.js';

// The queries of the sales reads (get_sales_summary, list_sales_by_listing; spec 4.2, 4.6)
// over the sales tables the orders projection keeps (sales-rollups.ts): each (account,
// marketplace) has its own window of whole local days, a range of `local_day`.
// - Totals and freshness sum `sales_days` (a few rows per day).
// - Per listing: the window's sales lines summed per sales group (`key`), or, when fewer days
//   fall outside the window than inside (a year's window), the all-time sums of `sales_skus`
//   less the lines outside; the group's account, marketplace, ASIN, SKU and title are read for
//   the page only.
// The status test is case-insensitive (spec 4.2), as the sales tables' own.

/** One account's marketplace and the local days the read covers there (inclusive). */
export interface SalesScope {
  account_id: string;
  marketplace_id: string;
  time_zone: string;
  first: string;
  last: string;
}

const rm = READ_MODEL_SCHEMA;

/** `alias`'s rows of the scopes' (account, marketplace) pairs, each `where(scope)` holds for. */
function perScope(
  alias: string,
  scopes: readonly SalesScope[],
  where: (s: SalesScope) => { sql: string; bindings: string[] },
): { sql: string; bindings: string[] } {
  const parts = scopes.map((s) => {
    const extra = where(s);
    return {
      sql: `(${alias}.account_id = ? and ${alias}.marketplace_id = ?${extra.sql ? ` and ${extra.sql}` : ''})`,
      bindings: [s.account_id, s.marketplace_id, ...extra.bindings],
    };
  });
  return { sql: `(${parts.map((p) => p.sql).join(' or ')})`, bindings: parts.flatMap((p) => p.bindings) };
}

const within = (alias: string) => (s: SalesScope) => ({
  sql: `${alias}.local_day between ?::date and ?::date`,
  bindings: [s.first, s.last],
});

const count = (v: unknown): number => Number(v ?? 0);

/** Runs an aggregation with room to hash its groups in memory: a year of one marketplace has
 * tens of thousands of (ASIN, SKU) groups, which the default work_mem sorts on disk instead. */
const aggregating = <T>(db: Knex, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> =>
  db.transaction(async (trx) => {
    await trx.raw(`set local work_mem = '64MB'`);
    return fn(trx);
  });

export interface SalesTotals {
  account_id: string;
  marketplace_id: string;
  currency: string | null;
  /** minor units of currency */
  revenue: number;
  units: number;
  orders: number;
  order_lines: number;
}

/**
 * Confirmed sales per account, marketplace and currency (one currency per marketplace in
 * practice). `orders` counts the confirmed orders whose items were read.
 */
export const salesTotals = (db: Knex, scopes: readonly SalesScope[]): Promise<SalesTotals[]> =>
  salesSums(db, scopes, false);

/** The same sums per local day (the console's charts): a window's totals are the sum of its days. */
export const salesPerDay = (db: Knex, scopes: readonly SalesScope[]): Promise<Array<SalesTotals & { day: string }>> =>
  salesSums(db, scopes, true);

async function salesSums(db: Knex, scopes: readonly SalesScope[], perDay: false): Promise<SalesTotals[]>;
async function salesSums(
  db: Knex,
  scopes: readonly SalesScope[],
  perDay: true,
): Promise<Array<SalesTotals & { day: string }>>;
async function salesSums(db: Knex, scopes: readonly SalesScope[], perDay: boolean) {
  if (scopes.length === 0) return [];
  const day = perDay ? `, d.local_day` : '';
  const where = perScope('d', scopes, within('d'));
  const { rows } = await db.raw(
    `select d.account_id, d.marketplace_id, d.currency${perDay ? `, to_char(d.local_day, 'YYYY-MM-DD') as day` : ''}, sum(d.revenue) as revenue, sum(d.units) as units, sum(d.lines) as order_lines,
  sum(d.orders_with_lines) filter (where ${statusIn('d.order_status', CONFIRMED_ORDER_STATUSES)}) as orders
from ${rm}.${SALES_DAYS_TABLE} d where ${where.sql}
group by d.account_id, d.marketplace_id, d.currency${day} having sum(d.lines) > 0
order by d.account_id, d.marketplace_id, d.currency${day}`,
    where.bindings,
  );
  return (rows as Record<string, unknown>[]).map((r) => ({
    account_id: r.account_id as string,
    marketplace_id: r.marketplace_id as string,
    currency: r.currency as string | null,
    ...(perDay ? { day: r.day as string } : {}),
    revenue: count(r.revenue),
    units: count(r.units),
    orders: count(r.orders),
    order_lines: count(r.order_lines),
  }));
}

export interface ListingSales {
  account_id: string;
  marketplace_id: string;
  asin: string | null;
  sku: string | null;
  /** the listing's current title; null when the listing is deleted or no longer listed */
  title: string | null;
  currency: string | null;
  revenue: number;
  units: number;
  orders: number;
}

export interface ListingSalesPage {
  rows: ListingSales[];
  /** (ASIN, SKU, marketplace) rows matching, before the limit */
  total: number;
  /** the currencies of every matching row, sorted */
  currencies: string[];
}

export interface ListingSalesQuery {
  asin?: string | undefined;
  sku?: string | undefined;
  order_by: 'revenue' | 'units';
  limit: number;
}

/**
 * Confirmed sales per (account, marketplace, ASIN, SKU), best first, with the count and the
 * currencies of all matching rows. `orders` counts the listing's lines: an order names a SKU
 * on one line.
 */
export async function salesByListing(
  db: Knex,
  scopes: readonly SalesScope[],
  q: ListingSalesQuery,
): Promise<ListingSalesPage> {
  if (scopes.length === 0) return { rows: [], total: 0, currencies: [] };
  const filtered = q.asin !== undefined || q.sku !== undefined;
  const fewer = await fewerOutside(db, scopes, filtered);
  // The windows' own lines of several scopes are summed in two statements side by side, on two
  // connections (the aggregate is most of the read): each gives the exact page of its scopes,
  // and the best of the two pages is the page of all of them.
  const parts = fewer || filtered ? [scopes] : await halves(db, scopes);
  const pages = await Promise.all(parts.map((part) => pageOf(db, part, q, fewer)));
  const rows = pages.length === 1 ? pages[0]!.rows : await bestOf(db, pages, q);
  return {
    total: pages.reduce((n, p) => n + p.total, 0),
    currencies: [...new Set(pages.flatMap((p) => p.currencies))].sort(),
    rows: rows.map((r) => ({
      account_id: r.account_id as string,
      marketplace_id: r.marketplace_id as string,
      asin: r.asin as string | null,
      sku: r.sku as string | null,
      title: (r.title as string | null) ?? null,
      currency: r.currency as string | null,
      revenue: count(r.revenue),
      units: count(r.units),
      orders: count(r.orders),
    })),
  };
}

type Row = Record<string, unknown>;

/** The sort of the rows: the two sums, then account, marketplace, ASIN and SKU. */
function rankOf(q: ListingSalesQuery): { first: string; second: string; order: (alias: string) => string } {
  const [first, second] =
    q.order_by === 'revenue' ? ['revenue desc nulls last', 'units desc'] : ['units desc', 'revenue desc nulls last'];
  return {
    first,
    second,
    order: (alias) => [first, second, 'account_id', 'marketplace_id', 'asin', 'sku'].map((k) => alias + k).join(', '),
  };
}

/** The page of some scopes, as the database returns its rows, with their count and currencies. */
async function pageOf(
  db: Knex,
  scopes: readonly SalesScope[],
  q: ListingSalesQuery,
  fewer: boolean,
): Promise<{ total: number; currencies: string[]; rows: Row[] }> {
  const filters = [...(q.asin === undefined ? [] : ['o.asin = ?']), ...(q.sku === undefined ? [] : ['o.sku = ?'])];
  const filterBindings = [q.asin, q.sku].filter((v): v is string => v !== undefined);
  const filtered = filters.length > 0;
  // The sums per sales group (`key`) of one scope `s`'s lines in any of `ranges` (each a range of
  // the index). Prices are summed as doubles, exact for integers below 2^53 minor units (as the
  // answer's JSON numbers are), and back to bigint: sum(bigint) is numeric, slower to sum and compare.
  const lines = (...ranges: string[]) =>
    `select o.key, count(*) as lines, count(o.price) as priced_lines, sum(o.price::float8)::bigint as revenue, sum(o.quantity) as units
    from (${ranges.map((r) => `select o.key, o.price, o.quantity from ${rm}.${SALES_LINES_TABLE} o where o.account_id = s.account_id and o.marketplace_id = s.marketplace_id and ${r}`).join(' union all ')}) o
    group by o.key`;
  // per scope, its own aggregate: several small hash tables are faster than one of all groups
  const perGroup = fewer
    ? `select k.key, k.lines - coalesce(x.lines, 0) as orders, k.units - coalesce(x.units, 0) as units,
         case when k.priced_lines > coalesce(x.priced_lines, 0) then k.revenue - coalesce(x.revenue, 0) end as revenue
       from ${rm}.${SALES_SKUS_TABLE} k left join (${lines('o.local_day < s.first', 'o.local_day > s.last')}) x on x.key = k.key
       where k.account_id = s.account_id and k.marketplace_id = s.marketplace_id`
    : `select x.key, x.lines as orders, x.units, x.revenue
       from (${lines(['o.local_day between s.first and s.last', ...filters].join(' and '))}) x`;
  const { first, second, order } = rankOf(q);
  const reversed = (key: string) => key.replace(' desc', '').replace('nulls last', 'nulls first');
  // the currencies of every matching row: with a filter, of the rows (few); without, of the
  // window's lines, which `sales_days` has per currency (read per scope by its index)
  const currencies = filtered
    ? `select c.currency from sales g join ${rm}.${SALES_SKUS_TABLE} c on c.key = g.key`
    : `select d.currency from scopes s cross join lateral (select distinct d.currency from ${rm}.${SALES_DAYS_TABLE} d
         where d.account_id = s.account_id and d.marketplace_id = s.marketplace_id and d.local_day between s.first and s.last and d.lines > 0) d`;
  // The page: the best `limit` groups by the two sums (a bounded sort), and every group tied
  // with the last of them, ordered in full once their account, marketplace, ASIN and SKU are read.
  const { rows } = await aggregating(db, (trx) =>
    trx.raw(
      `with scopes as (select * from ${scopesSql(scopes)}),
sales as materialized (select x.* from scopes s cross join lateral (${perGroup}) x where x.orders > 0),
top as (select * from sales order by ${first}, ${second} limit ?),
edge as (select units, revenue from top order by ${reversed(first)}, ${reversed(second)} limit 1),
page as (select * from top union select g.* from sales g join edge e on g.units = e.units and g.revenue is not distinct from e.revenue)
select m.total, m.currencies, p.*
from (select (select count(*) from sales) as total,
  (select coalesce(array_agg(distinct c.currency) filter (where c.currency is not null), '{}') from (${currencies}) c) as currencies) m
left join lateral (
  select k.account_id, k.marketplace_id, k.asin, k.sku, k.currency, p.revenue, p.units, p.orders,
    case when l.status is distinct from 'DELETED' then l.title end as title
  from page p join ${rm}.${SALES_SKUS_TABLE} k on k.key = p.key
  left join ${rm}.${CURRENT_LISTINGS_TABLE} l on (l.account_id, l.marketplace_id, l.sku) = (k.account_id, k.marketplace_id, k.sku)
  order by p.${first}, p.${second}, k.account_id, k.marketplace_id, k.asin, k.sku limit ?) p on true
order by ${order('p.')}`,
      [...scopeBindings(scopes), ...filterBindings, q.limit, q.limit],
    ),
  );
  const all = rows as Row[];
  return {
    total: count(all[0]?.total),
    currencies: (all[0]?.currencies as string[] | undefined) ?? [],
    rows: all.filter((r) => r.account_id !== null),
  };
}

/** The scopes in two parts of about as many lines in their windows (by `sales_days`), the larger
 * scopes first; one part when there is one scope or no window holds a line. */
async function halves(db: Knex, scopes: readonly SalesScope[]): Promise<Array<readonly SalesScope[]>> {
  if (scopes.length < 2) return [scopes];
  const { rows } = await db.raw(
    `select s.account_id, s.marketplace_id, coalesce((select sum(d.lines) from ${rm}.${SALES_DAYS_TABLE} d
       where d.account_id = s.account_id and d.marketplace_id = s.marketplace_id and d.local_day between s.first and s.last), 0) as lines
     from ${scopesSql(scopes)}`,
    scopeBindings(scopes),
  );
  const lines = new Map((rows as Row[]).map((r) => [`${r.account_id}/${r.marketplace_id}`, count(r.lines)]));
  const weight = (s: SalesScope) => lines.get(`${s.account_id}/${s.marketplace_id}`) ?? 0;
  const parts: Array<{ scopes: SalesScope[]; lines: number }> = [
    { scopes: [], lines: 0 },
    { scopes: [], lines: 0 },
  ];
  for (const scope of [...scopes].sort((a, b) => weight(b) - weight(a))) {
    const lighter = parts[0]!.lines <= parts[1]!.lines ? parts[0]! : parts[1]!;
    lighter.scopes.push(scope);
    lighter.lines += weight(scope);
  }
  // with no lines in any window every scope lands in one part: no second statement over none
  return parts.map((p) => p.scopes).filter((part) => part.length > 0);
}

/** The best `limit` of the pages' rows, sorted by the database as each page was. */
async function bestOf(db: Knex, pages: ReadonlyArray<{ rows: Row[] }>, q: ListingSalesQuery): Promise<Row[]> {
  const { rows } = await db.raw(
    `select * from jsonb_to_recordset(?::jsonb) r(account_id uuid, marketplace_id text, asin text, sku text, currency text,
       revenue bigint, units bigint, orders bigint, title text)
     order by ${rankOf(q).order('r.')} limit ?`,
    [JSON.stringify(pages.flatMap((p) => p.rows)), q.limit],
  );
  return rows as Row[];
}

/** Whether fewer of the scopes' days fall outside their windows than inside, within each scope's
 * days in `sales_days` (a day holds about as many lines as another): then the all-time sums less
 * the lines outside are the cheaper read. Either read gives the same rows; this picks the cheaper
 * by two index probes per scope instead of summing a year of rows. Not with an ASIN or SKU
 * filter: the window's lines of one listing are few anyway. */
async function fewerOutside(db: Knex, scopes: readonly SalesScope[], filtered: boolean): Promise<boolean> {
  if (filtered) return false;
  const { rows } = await db.raw(
    `select coalesce(sum(greatest(0, least(s.last, d.last) - greatest(s.first, d.first) + 1)), 0) as inside,
       coalesce(sum(d.last - d.first + 1), 0) as days
     from ${scopesSql(scopes)} cross join lateral (
       select min(d.local_day) as first, max(d.local_day) as last from ${rm}.${SALES_DAYS_TABLE} d
       where d.account_id = s.account_id and d.marketplace_id = s.marketplace_id) d
     where d.first is not null`,
    scopeBindings(scopes),
  );
  const { inside, days } = rows[0] as { inside: string; days: string };
  return Number(days) - Number(inside) < Number(inside);
}

/** The scopes as a relation `s` (account_id, marketplace_id, first, last), with `scopeBindings`. */
const scopesSql = (scopes: readonly SalesScope[]): string =>
  `(values ${scopes.map(() => '(?::uuid, ?::text, ?::date, ?::date)').join(', ')}) s(account_id, marketplace_id, first, last)`;
const scopeBindings = (scopes: readonly SalesScope[]): string[] =>
  scopes.flatMap((x) => [x.account_id, x.marketplace_id, x.first, x.last]);

export interface OrdersFreshness {
  account_id: string;
  marketplace_id: string;
  /** confirmed orders in the window whose items have not been read: their sales are missing */
  orders_without_items: number;
  /** orders in the window still pending: no lines, not counted yet */
  pending_orders: number;
  /** the first and last purchase of any order held for the marketplace, whatever its status */
  earliest_order_at: Date | null;
  last_order_at: Date | null;
}

/** How complete the orders read models are, per scope (all of them, also those without orders). */
export async function ordersFreshness(db: Knex, scopes: readonly SalesScope[]): Promise<OrdersFreshness[]> {
  if (scopes.length === 0) return [];
  const days = perScope('d', scopes, within('d'));
  const edge = (
    direction: 'asc' | 'desc',
  ) => `(select o.purchased_at from ${rm}.${ORDERS_TABLE} o join ${rm}.${ORDER_SCOPES_TABLE} c on c.account_id = o.account_id and c.scope = o.scope and o.page < c.pages
    where o.account_id = k.account_id and o.marketplace_id = k.marketplace_id order by o.purchased_at ${direction} limit 1)`;
  const { rows } = await db.raw(
    `with counts as (
  select d.account_id, d.marketplace_id,
    sum(d.orders - d.orders_with_lines) filter (where ${statusIn('d.order_status', CONFIRMED_ORDER_STATUSES)}) as orders_without_items,
    sum(d.orders) filter (where ${statusIn('d.order_status', PENDING_ORDER_STATUSES)}) as pending_orders
  from ${rm}.${SALES_DAYS_TABLE} d where ${days.sql} group by d.account_id, d.marketplace_id)
select k.account_id, k.marketplace_id, c.orders_without_items, c.pending_orders, ${edge('asc')} as earliest_order_at, ${edge('desc')} as last_order_at
from (values ${scopes.map(() => '(?::uuid, ?::text, ?::int)').join(', ')}) k(account_id, marketplace_id, position)
left join counts c on c.account_id = k.account_id and c.marketplace_id = k.marketplace_id
order by k.position`,
    [...days.bindings, ...scopes.flatMap((s, i) => [s.account_id, s.marketplace_id, i])],
  );
  return (rows as Record<string, unknown>[]).map((r) => ({
    account_id: r.account_id as string,
    marketplace_id: r.marketplace_id as string,
    orders_without_items: count(r.orders_without_items),
    pending_orders: count(r.pending_orders),
    earliest_order_at: (r.earliest_order_at as Date | null) ?? null,
    last_order_at: (r.last_order_at as Date | null) ?? null,
  }));
}

/** Units of one SKU in a marketplace sold on confirmed business (B2B) orders purchased at or after `since` (and before `until`, a backtest's event time). */
export async function businessUnitsSince(
  db: Knex,
  listing: { account_id: string; marketplace_id: string; sku: string },
  since: Date,
  until: Date | null = null,
): Promise<number> {
  const { rows } = await prepared<{ rows: unknown[] }>(() => businessUnitsQuery(db, listing, since, until));
  return businessUnitsOf(rows);
}

/** businessUnitsSince's query: one row `{ units }` (readTogether takes it beside others). */
export const businessUnitsQuery = (
  db: Knex,
  listing: { account_id: string; marketplace_id: string; sku: string },
  since: Date,
  until: Date | null = null,
) =>
  db.raw(
    `select coalesce(sum(o.quantity), 0) as units from ${rm}.${SALES_LINES_TABLE} o
     where o.account_id = ? and o.marketplace_id = ? and o.sku = ? and o.sold_at >= ? and (?::timestamptz is null or o.sold_at < ?) and o.is_business_order`,
    [listing.account_id, listing.marketplace_id, listing.sku, since, until, until],
  );

/** The units of businessUnitsQuery's row (a numeric: text from the pool, a number through readTogether). */
export const businessUnitsOf = (rows: readonly unknown[]): number =>
  count((rows[0] as { units?: unknown } | undefined)?.units);

/** A business order's line: when and how many units of a listing were sold. */
export interface BusinessLine {
  marketplace_id: string;
  sku: string;
  sold_at: Date;
  quantity: number;
}

/** The account's business-order lines sold in [since, until), oldest first (a backtest sums them per listing and moment). */
export async function businessLinesBetween(
  db: Knex,
  account_id: string,
  since: Date,
  until: Date,
): Promise<BusinessLine[]> {
  const { rows } = await db.raw(
    `select o.marketplace_id, o.sku, o.sold_at, o.quantity from ${rm}.${SALES_LINES_TABLE} o
     where o.account_id = ? and o.sold_at >= ? and o.sold_at < ? and o.is_business_order order by o.sold_at`,
    [account_id, since, until],
  );
  return (rows as Array<Record<string, unknown>>).map((r) => ({
    marketplace_id: r.marketplace_id as string,
    sku: r.sku as string,
    sold_at: r.sold_at as Date,
    quantity: count(r.quantity),
  }));
}
