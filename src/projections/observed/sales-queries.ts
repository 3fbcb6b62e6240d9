import type { Knex } from 'knex';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { CONFIRMED_ORDER_STATUSES } from '../views/v_sales_lines.js';
import { completeReads } from './economics-support.js';
import { currentListingsSql } from './listings.js';
import { ORDER_LINES_TABLE, ORDERS_TABLE } from './orders.js';
import { ORDERS_DATASET } from '../../domain/observation/datasets.js';

// The queries of the sales reads (get_sales_summary, list_sales_by_listing; spec 4.2, 4.6)
// over rm.orders and rm.order_lines, complete reads only, aggregated in SQL.
// - Each (account, marketplace) has its own window of whole local days, turned into UTC
//   bounds in SQL from constants, so an index on (account_id, marketplace_id, purchased_at)
//   serves each range and the planner estimates it from the column's statistics.
// - The status test is case-insensitive (spec 4.2), written as exact match or lower() match:
//   the planner estimates the exact match from statistics (lower() alone it cannot, and it
//   would then plan for a handful of rows).

/** One account's marketplace and the local days the read covers there (inclusive). */
export interface SalesScope {
  account_id: string;
  marketplace_id: string;
  time_zone: string;
  first: string;
  last: string;
}

const PENDING = ['Pending', 'PendingAvailability'];

/** `alias.order_status` is one of `statuses`, whatever its case, and its bindings. */
const statusIn = (alias: string, statuses: readonly string[]) => ({
  sql: `(${alias}.order_status = any(?::text[]) or lower(${alias}.order_status) = any(?::text[]))`,
  bindings: [[...statuses], statuses.map((s) => s.toLowerCase())],
});
const confirmed = (alias: string) => statusIn(alias, CONFIRMED_ORDER_STATUSES);

/** Rows (alias o) of `table` of complete reads purchased within a scope's window. */
function inWindows(table: string, scopes: readonly SalesScope[]): { sql: string; bindings: string[] } {
  const window = `(o.account_id = ? and o.marketplace_id = ? and o.purchased_at >= (?::date)::timestamp at time zone ? and o.purchased_at < (?::date + 1)::timestamp at time zone ?)`;
  return {
    sql: `${READ_MODEL_SCHEMA}.${table} o ${completeReads('o', ORDERS_DATASET)} where (${scopes.map(() => window).join(' or ')})`,
    bindings: scopes.flatMap((s) => [s.account_id, s.marketplace_id, s.first, s.time_zone, s.last, s.time_zone]),
  };
}

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
 * practice). `orders` counts the confirmed orders whose items were read, from rm.orders
 * (cheaper than distinct order ids over every line).
 */
export async function salesTotals(db: Knex, scopes: readonly SalesScope[]): Promise<SalesTotals[]> {
  if (scopes.length === 0) return [];
  const lines = inWindows(ORDER_LINES_TABLE, scopes);
  const orders = inWindows(ORDERS_TABLE, scopes);
  const status = confirmed('o');
  const { rows } = await aggregating(db, (trx) =>
    trx.raw(
      `with lines as materialized (
  select o.account_id, o.marketplace_id, o.currency, sum(o.price) as revenue, sum(o.quantity) as units, count(*) as order_lines
  from ${lines.sql} and ${status.sql} group by o.account_id, o.marketplace_id, o.currency),
orders as materialized (
  select o.account_id, o.marketplace_id, o.currency, count(*) as orders
  from ${orders.sql} and ${status.sql} and o.line_count > 0 group by o.account_id, o.marketplace_id, o.currency)
select l.*, x.orders from lines l
left join orders x on x.account_id = l.account_id and x.marketplace_id = l.marketplace_id and x.currency is not distinct from l.currency
order by l.account_id, l.marketplace_id, l.currency`,
      [...lines.bindings, ...status.bindings, ...orders.bindings, ...status.bindings],
    ),
  );
  return (rows as Record<string, unknown>[]).map((r) => ({
    account_id: r.account_id as string,
    marketplace_id: r.marketplace_id as string,
    currency: r.currency as string | null,
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
  const lines = inWindows(ORDER_LINES_TABLE, scopes);
  const filters = [...(q.asin === undefined ? [] : ['o.asin = ?']), ...(q.sku === undefined ? [] : ['o.sku = ?'])];
  const filterBindings = [q.asin, q.sku].filter((v): v is string => v !== undefined);
  const keys =
    q.order_by === 'revenue' ? ['revenue desc nulls last', 'units desc'] : ['units desc', 'revenue desc nulls last'];
  const order = (alias: string) =>
    [...keys, 'account_id', 'marketplace_id', 'asin', 'sku'].map((k) => `${alias}${k}`).join(', ');
  const status = confirmed('o');
  const { rows } = await aggregating(db, (trx) =>
    trx.raw(
      `with sales as (
  select o.account_id, o.marketplace_id, o.asin, o.sku, o.currency, sum(o.price) as revenue, sum(o.quantity) as units, count(*) as orders
  from ${lines.sql} and ${status.sql} ${filters.map((f) => `and ${f}`).join(' ')}
  group by o.account_id, o.marketplace_id, o.asin, o.sku, o.currency)
select m.total, m.currencies, p.*
from (select count(*) as total, coalesce(array_agg(distinct currency) filter (where currency is not null), '{}') as currencies from sales) m
left join lateral (select * from sales order by ${order('')} limit ?) p on true
order by ${order('p.')}`,
      [...lines.bindings, ...status.bindings, ...filterBindings, q.limit],
    ),
  );
  const all = rows as Record<string, unknown>[];
  const page = all.filter((r) => r.account_id !== null);
  const titles = await listingTitles(
    db,
    page as Array<{ account_id: string; marketplace_id: string; sku: string | null }>,
  );
  return {
    total: count(all[0]?.total),
    currencies: ((all[0]?.currencies as string[] | undefined) ?? []).sort(),
    rows: page.map((r) => ({
      account_id: r.account_id as string,
      marketplace_id: r.marketplace_id as string,
      asin: r.asin as string | null,
      sku: r.sku as string | null,
      title: titles.get(`${r.account_id}/${r.marketplace_id}/${r.sku}`) ?? null,
      currency: r.currency as string | null,
      revenue: count(r.revenue),
      units: count(r.units),
      orders: count(r.orders),
    })),
  };
}

/** Current titles of listings still listed, keyed `account/marketplace/sku`, for a page of rows only. */
async function listingTitles(
  db: Knex,
  keys: ReadonlyArray<{ account_id: string; marketplace_id: string; sku: string | null }>,
): Promise<Map<string, string>> {
  const wanted = keys.filter((k) => k.sku !== null);
  if (wanted.length === 0) return new Map();
  const distinct = (f: (k: (typeof wanted)[number]) => string) => [...new Set(wanted.map(f))];
  // conditions on the DISTINCT ON columns are pushed into the subquery: only these SKUs are read
  const { rows } = await db.raw(
    `select c.account_id, c.marketplace_id, c.sku, c.title from (${currentListingsSql}) c
where c.account_id = any(?::uuid[]) and c.marketplace_id = any(?::text[]) and c.sku = any(?::text[]) and c.status is distinct from 'DELETED'`,
    [distinct((k) => k.account_id), distinct((k) => k.marketplace_id), distinct((k) => k.sku!)],
  );
  return new Map(
    (rows as Array<{ account_id: string; marketplace_id: string; sku: string; title: string | null }>)
      .filter((r) => r.title !== null)
      .map((r) => [`${r.account_id}/${r.marketplace_id}/${r.sku}`, r.title!]),
  );
}

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
  const orders = inWindows(ORDERS_TABLE, scopes);
  const edge = (
    direction: 'asc' | 'desc',
  ) => `(select o.purchased_at from ${READ_MODEL_SCHEMA}.${ORDERS_TABLE} o ${completeReads('o', ORDERS_DATASET)}
    where o.account_id = k.account_id and o.marketplace_id = k.marketplace_id order by o.purchased_at ${direction} limit 1)`;
  const status = confirmed('o');
  const pending = statusIn('o', PENDING);
  const { rows } = await db.raw(
    `with counts as (
  select o.account_id, o.marketplace_id, count(*) filter (where ${status.sql} and o.line_count = 0) as orders_without_items, count(*) filter (where ${pending.sql}) as pending_orders
  from ${orders.sql} group by o.account_id, o.marketplace_id)
select k.account_id, k.marketplace_id, c.orders_without_items, c.pending_orders, ${edge('asc')} as earliest_order_at, ${edge('desc')} as last_order_at
from (values ${scopes.map(() => '(?::uuid, ?::text, ?::int)').join(', ')}) k(account_id, marketplace_id, position)
left join counts c on c.account_id = k.account_id and c.marketplace_id = k.marketplace_id
order by k.position`,
    [
      ...status.bindings,
      ...pending.bindings,
      ...orders.bindings,
      ...scopes.flatMap((s, i) => [s.account_id, s.marketplace_id, i]),
    ],
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

/** Units of one SKU in a marketplace sold on confirmed business (B2B) orders purchased at or after `since`. */
export async function businessUnitsSince(
  db: Knex,
  listing: { account_id: string; marketplace_id: string; sku: string },
  since: Date,
): Promise<number> {
  const status = confirmed('o');
  const { rows } = await db.raw(
    `select coalesce(sum(o.quantity), 0) as units from ${READ_MODEL_SCHEMA}.${ORDER_LINES_TABLE} o ${completeReads('o', ORDERS_DATASET)}
     where o.account_id = ? and o.marketplace_id = ? and o.purchased_at >= ? and o.sku = ? and o.is_business_order and ${status.sql}`,
    [listing.account_id, listing.marketplace_id, since, listing.sku, ...status.bindings],
  );
  return count(rows[0]?.units);
}
