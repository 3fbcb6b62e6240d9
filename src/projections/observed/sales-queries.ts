import type { Knex } from 'knex';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { CONFIRMED_ORDER_STATUSES } from '../views/v_sales_lines.js';
import { completeReads } from './economics-support.js';
import { currentListingsSql } from './listings.js';
import { ORDER_LINES_TABLE, ORDERS_DATASET, ORDERS_TABLE } from './orders.js';

// The queries of the sales reads (get_sales_summary, list_sales_by_listing; spec 4.2, 4.6)
// over rm.orders and rm.order_lines, complete reads only. Each (account, marketplace) has its
// own window of whole local days, turned into UTC bounds in SQL, so that an index on
// (account_id, marketplace_id, purchased_at) serves every range. Aggregation is in SQL.

/** One account's marketplace and the local days the read covers there (inclusive). */
export interface SalesScope {
  account_id: string;
  marketplace_id: string;
  time_zone: string;
  first: string;
  last: string;
}

/** Spec 4.2: confirmed orders, matched case-insensitively (a later Canceled is no longer confirmed). */
const CONFIRMED = CONFIRMED_ORDER_STATUSES.map((s) => s.toLowerCase());
const PENDING = ['pending', 'pendingavailability'];

/** `w`: each scope with the UTC instants its first local day starts and its last one ends. */
function windowsCte(scopes: readonly SalesScope[]): { sql: string; bindings: string[] } {
  const values = scopes.map(() => '(?::uuid, ?::text, ?::date, ?::date, ?::text)').join(', ');
  return {
    sql: `w as (select v.account_id, v.marketplace_id, v.first::timestamp at time zone v.tz as starts_at, (v.last + 1)::timestamp at time zone v.tz as ends_at
  from (values ${values}) v(account_id, marketplace_id, first, last, tz))`,
    bindings: scopes.flatMap((s) => [s.account_id, s.marketplace_id, s.first, s.last, s.time_zone]),
  };
}

/** Rows of `table` (alias o) of complete reads purchased within a scope's window. */
const inWindow = (table: string) => `${READ_MODEL_SCHEMA}.${table} o
  join w on o.account_id = w.account_id and o.marketplace_id = w.marketplace_id and o.purchased_at >= w.starts_at and o.purchased_at < w.ends_at
  ${completeReads('o', ORDERS_DATASET)}`;

const count = (v: unknown): number => Number(v ?? 0);

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

/** Confirmed sales per account, marketplace and currency (one currency per marketplace in practice). */
export async function salesTotals(db: Knex, scopes: readonly SalesScope[]): Promise<SalesTotals[]> {
  if (scopes.length === 0) return [];
  const w = windowsCte(scopes);
  const { rows } = await db.raw(
    `with ${w.sql}
select o.account_id, o.marketplace_id, o.currency, sum(o.price) as revenue, sum(o.quantity) as units, count(distinct o.order_id) as orders, count(*) as order_lines
from ${inWindow(ORDER_LINES_TABLE)}
where lower(o.order_status) = any(?::text[])
group by o.account_id, o.marketplace_id, o.currency
order by o.account_id, o.marketplace_id, o.currency`,
    [...w.bindings, CONFIRMED],
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
 * on one line. Titles are looked up only for the rows returned.
 */
export async function salesByListing(db: Knex, scopes: readonly SalesScope[], q: ListingSalesQuery): Promise<ListingSalesPage> {
  if (scopes.length === 0) return { rows: [], total: 0, currencies: [] };
  const w = windowsCte(scopes);
  const filters = [...(q.asin === undefined ? [] : ['o.asin = ?']), ...(q.sku === undefined ? [] : ['o.sku = ?'])];
  const filterBindings = [q.asin, q.sku].filter((v): v is string => v !== undefined);
  const keys = q.order_by === 'revenue' ? ['revenue desc nulls last', 'units desc'] : ['units desc', 'revenue desc nulls last'];
  const order = (alias: string) => [...keys, 'account_id', 'marketplace_id', 'asin', 'sku'].map((k) => `${alias}${k}`).join(', ');
  const { rows } = await db.raw(
    `with ${w.sql},
sales as (
  select o.account_id, o.marketplace_id, o.asin, o.sku, o.currency, sum(o.price) as revenue, sum(o.quantity) as units, count(*) as orders
  from ${inWindow(ORDER_LINES_TABLE)}
  where lower(o.order_status) = any(?::text[]) ${filters.map((f) => `and ${f}`).join(' ')}
  group by o.account_id, o.marketplace_id, o.asin, o.sku, o.currency),
page as (select * from sales order by ${order('')} limit ?)
select m.total, m.currencies, p.*, case when l.status is distinct from 'DELETED' then l.title end as title
from (select count(*) as total, coalesce(array_agg(distinct currency) filter (where currency is not null), '{}') as currencies from sales) m
left join page p on true
left join lateral (select c.title, c.status from (${currentListingsSql}) c where c.account_id = p.account_id and c.marketplace_id = p.marketplace_id and c.sku = p.sku) l on true
order by ${order('p.')}`,
    [...w.bindings, CONFIRMED, ...filterBindings, q.limit],
  );
  const all = rows as Record<string, unknown>[];
  return {
    total: count(all[0]?.total),
    currencies: ((all[0]?.currencies as string[] | undefined) ?? []).sort(),
    rows: all
      .filter((r) => r.account_id !== null)
      .map((r) => ({
        account_id: r.account_id as string,
        marketplace_id: r.marketplace_id as string,
        asin: r.asin as string | null,
        sku: r.sku as string | null,
        title: r.title as string | null,
        currency: r.currency as string | null,
        revenue: count(r.revenue),
        units: count(r.units),
        orders: count(r.orders),
      })),
  };
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
  const w = windowsCte(scopes);
  const edge = (direction: 'asc' | 'desc') => `(select o.purchased_at from ${READ_MODEL_SCHEMA}.${ORDERS_TABLE} o ${completeReads('o', ORDERS_DATASET)}
    where o.account_id = w.account_id and o.marketplace_id = w.marketplace_id order by o.purchased_at ${direction} limit 1)`;
  const { rows } = await db.raw(
    `with ${w.sql},
counts as (
  select o.account_id, o.marketplace_id,
    count(*) filter (where lower(o.order_status) = any(?::text[]) and o.line_count = 0) as orders_without_items,
    count(*) filter (where lower(o.order_status) = any(?::text[])) as pending_orders
  from ${inWindow(ORDERS_TABLE)}
  group by o.account_id, o.marketplace_id)
select w.account_id, w.marketplace_id, c.orders_without_items, c.pending_orders, ${edge('asc')} as earliest_order_at, ${edge('desc')} as last_order_at
from w left join counts c on c.account_id = w.account_id and c.marketplace_id = w.marketplace_id`,
    [...w.bindings, CONFIRMED, PENDING],
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
