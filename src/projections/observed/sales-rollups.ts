import type { Knex } from 'knex';
import { MARKETPLACES } from '../../domain/shared/marketplaces.js';
import { columnsOf, createTables, type TableSpec } from '../tables.js';

// The sales read models the orders projection keeps beside `orders` and `order_lines`, so
// v_sales_lines, its rollups and the sales tools read narrow rows and small sums instead of
// a year of wide order lines (docs/observed-data.md, "Sales"):
// - `order_scopes`: the page count of each orders scope's last complete read, the
//   projection's own copy (from SyncCompleted), so everything below follows the event order
//   exactly, whatever other projections have reached.
// - `sales_lines`: the lines of confirmed orders of complete reads, narrow (no raw `data`),
//   with the purchase's local day in its marketplace's calendar. v_sales_lines reads it.
// - `sales_days`: per scope (marketplace and UTC day of purchase), local day, currency,
//   status and business flag: orders, orders with lines, and the lines' counts and sums.
//   Rebuilt per scope from the two tables above whenever the scope changes.
// - `sales_skus`: all-time sums per (marketplace, currency, ASIN, SKU), kept by adding the
//   difference between a scope's old and new sales lines (integer sums: exact).
// - `sales_listings`: the same per (marketplace, currency, SKU), whatever the ASIN: one row per
//   group of v_sales_lines_by_listing, so a query grouping one account's lines by listing reads
//   its rows as the groups (rollup-rewrite.ts).
// Both carry `key`, the sales group (account, marketplace, currency, ASIN, SKU) as one uuid:
// the per-listing read groups a window's lines by it and finds the group's row by it, one
// fixed-width value instead of five (two text columns nullable) to hash and compare.
// Revenue is kept as `revenue` (the sum of the non-null prices, 0 when none) beside
// `priced_lines`, so a sum over rollup rows is null exactly when every price was null.

export const ORDER_SCOPES_TABLE = 'order_scopes';
export const SALES_LINES_TABLE = 'sales_lines';
export const SALES_DAYS_TABLE = 'sales_days';
export const SALES_SKUS_TABLE = 'sales_skus';
export const SALES_LISTINGS_TABLE = 'sales_listings';

/** Order statuses of confirmed orders: Pending has no lines yet, Canceled is excluded (any case). */
export const CONFIRMED_ORDER_STATUSES = ['Unshipped', 'PartiallyShipped', 'Shipped', 'InvoiceUnconfirmed'] as const;
export const PENDING_ORDER_STATUSES = ['Pending', 'PendingAvailability'] as const;

/** SQL: `column` is one of `statuses`, whatever its case (constants of ours, inlined). */
export const statusIn = (column: string, statuses: readonly string[]): string =>
  `lower(${column}) in (${statuses.map((s) => `'${s.toLowerCase()}'`).join(', ')})`;

/** SQL: the local calendar day of `instant` in the marketplace `marketplace` names (UTC for one we don't know). */
export const localDaySql = (instant: string, marketplace: string): string =>
  `(${instant} at time zone case ${marketplace} ${MARKETPLACES.map((m) => `when '${m.id}' then '${m.timeZone}'`).join(' ')} else 'UTC' end)::date`;

const GROUP = ['account_id', 'marketplace_id', 'currency', 'asin', 'sku'];
const LISTING_GROUP = GROUP.filter((c) => c !== 'asin');

/** SQL: a group's `key` from its columns (`group`; `account` and `other` the expressions naming
 * them): an md5 of the JSON array of them, so nulls and separators can't make two groups one. */
const groupKeySql = (group: readonly string[], account: string, other: (column: string) => string): string =>
  `md5(jsonb_build_array(${account}, ${group.slice(1).map(other).join(', ')})::text)::uuid`;

const SUMS = { ...columnsOf(['lines', 'priced_lines'], 'integer'), ...columnsOf(['revenue', 'units'], 'bigint') };

export const SALES_TABLES: Record<string, TableSpec> = {
  [ORDER_SCOPES_TABLE]: {
    columns: { account_id: 'uuid', scope: 'text', pages: 'integer' },
    primary: ['account_id', 'scope'],
  },
  [SALES_LINES_TABLE]: {
    columns: {
      account_id: 'uuid',
      scope: 'text',
      page: 'integer',
      row: 'integer',
      order_id: 'uuid',
      amazon_order_id: 'text',
      key: 'uuid',
      sold_at: 'timestamptz',
      order_status: 'text',
      is_business_order: 'boolean',
      marketplace_id: 'text',
      currency: 'text null',
      asin: 'text null',
      sku: 'text null',
      price: 'bigint null',
      quantity: 'integer',
      local_day: 'date',
    },
    primary: ['account_id', 'scope', 'page', 'row'],
  },
  [SALES_DAYS_TABLE]: {
    columns: {
      account_id: 'uuid',
      scope: 'text',
      marketplace_id: 'text',
      day: 'date',
      local_day: 'date',
      currency: 'text null',
      order_status: 'text null',
      is_business_order: 'boolean',
      ...columnsOf(['orders', 'orders_with_lines'], 'integer'),
      ...SUMS,
    },
    indexes: [['account_id', 'scope']],
  },
  [SALES_SKUS_TABLE]: {
    columns: {
      key: 'uuid primary',
      account_id: 'uuid',
      marketplace_id: 'text',
      currency: 'text null',
      asin: 'text null',
      sku: 'text null',
      ...SUMS,
    },
    indexes: [['account_id', 'marketplace_id']],
  },
  [SALES_LISTINGS_TABLE]: {
    columns: {
      key: 'uuid primary',
      account_id: 'uuid',
      marketplace_id: 'text',
      currency: 'text null',
      sku: 'text null',
      ...SUMS,
    },
    indexes: [['account_id', 'marketplace_id']],
  },
};

export async function createSalesTables(db: Knex | Knex.Transaction, schema: string): Promise<void> {
  await createTables(db, schema, SALES_TABLES);
  // the sales tools' windows: one range of local days per account and marketplace, index-only
  await db.raw(
    `create index ?? on ??.${SALES_LINES_TABLE} (account_id, marketplace_id, local_day) include (key, price, quantity)`,
    [`${SALES_LINES_TABLE}_by_local_day`, schema],
  );
  await db.raw(`create index ?? on ??.${SALES_LINES_TABLE} (account_id, marketplace_id, sku)`, [
    `${SALES_LINES_TABLE}_by_sku`,
    schema,
  ]);
  await db.raw(`create index ?? on ??.${SALES_DAYS_TABLE} (account_id, marketplace_id, local_day)`, [
    `${SALES_DAYS_TABLE}_by_local_day`,
    schema,
  ]);
  // Every scope's upsert rewrites its groups' sums. No index holds them, so with room left on
  // each page the new row versions stay on their page (HOT) and the old ones are pruned there:
  // the tables keep their size without a VACUUM (autovacuum is off on some machines).
  for (const table of [SALES_SKUS_TABLE, SALES_LISTINGS_TABLE])
    await db.raw(`alter table ??.?? set (fillfactor = 70)`, [schema, table]);
}

/** Records the page count of an orders scope's complete read. */
export async function recordOrderScope(
  trx: Knex.Transaction,
  schema: string,
  scope: { account_id: string; scope: string; pages: number },
): Promise<void> {
  await trx
    .withSchema(schema)
    .table(ORDER_SCOPES_TABLE)
    .insert(scope)
    .onConflict(['account_id', 'scope'])
    .merge(['pages']);
}

const LINE_COLUMNS = [
  'account_id',
  'scope',
  'page',
  'row',
  'order_id',
  'amazon_order_id',
  'order_status',
  'is_business_order',
  'marketplace_id',
  'currency',
  'asin',
  'sku',
  'price',
  'quantity',
];
/** A scope whose order rows or page count changed; `page` when only that page's rows did. */
export interface ChangedScope {
  account_id: string;
  scope: string;
  page?: number;
}

/** The changed scopes as a relation `w`, bound as three arrays (scopeBindings). */
const SCOPES = 'unnest(?::uuid[], ?::text[], ?::int[]) w(account_id, scope, page)';
/** A row of `x` (a table with a `page` column) is in `w` when its scope is, and its page too where one is named. */
const inScopes = (x: string) =>
  `${x}.account_id = w.account_id and ${x}.scope = w.scope and (w.page is null or ${x}.page = w.page)`;
const joinScopes = (x: string) => `join ${SCOPES} on ${inScopes(x)}`;
const scopeBindings = (scopes: readonly ChangedScope[]): Knex.Value[] => [
  scopes.map((c) => c.account_id),
  scopes.map((c) => c.scope),
  scopes.map((c) => c.page ?? null) as Knex.Value,
];

/**
 * Brings the sales tables in line with `order_lines` for the scopes (or single pages of them):
 * the confirmed lines of pages below each scope's complete read replace the sales lines held,
 * `sales_skus` and `sales_listings` take the difference (a group left without lines is deleted), and the scopes'
 * `sales_days` are summed again. Call it after the order rows changed, and after the scope's
 * page count did. One statement of each kind for all the scopes (a batch touches hundreds); a
 * scope named twice is refreshed once.
 */
export async function refreshSales(
  trx: Knex.Transaction,
  schema: string,
  changed: readonly ChangedScope[],
  tables: { orders: string; lines: string },
): Promise<void> {
  // each scope once: its page when every change named that page, else the whole scope
  const merged = new Map<string, ChangedScope>();
  for (const c of changed) {
    const key = `${c.account_id}/${c.scope}`;
    const seen = merged.get(key);
    merged.set(key, seen && seen.page !== c.page ? { account_id: c.account_id, scope: c.scope } : c);
  }
  if (merged.size === 0) return;
  const unique = [...merged.values()];
  const s = (table: string) => `"${schema}"."${table}"`;
  const scopes = scopeBindings(unique);
  const held = `select ${GROUP.map((k) => `x.${k}`).join(', ')}, x.price, x.quantity from ${s(SALES_LINES_TABLE)} x ${joinScopes('x')}`;
  const confirmed = `select x.*, ${localDaySql('x.purchased_at', 'x.marketplace_id')} as local_day from ${s(tables.lines)} x
    ${joinScopes('x')}
    join ${s(ORDER_SCOPES_TABLE)} c on c.account_id = x.account_id and c.scope = x.scope and x.page < c.pages
    where ${statusIn('x.order_status', CONFIRMED_ORDER_STATUSES)}`;
  const sums = (sign: '' | '-') =>
    `${sign}1 as lines, ${sign}(price is not null)::int as priced_lines, ${sign}coalesce(price, 0) as revenue, ${sign}quantity::bigint as units`;
  // the difference, added to each table's groups; a group left without lines is deleted after
  const upsert = (table: string, group: readonly string[]) => `
       insert into ${s(table)} as t (key, ${group.join(', ')}, lines, priced_lines, revenue, units)
       select ${groupKeySql(group, 'account_id', (c) => c)}, ${group.join(', ')}, sum(lines), sum(priced_lines), sum(revenue), sum(units)
       from d group by ${group.join(', ')}
       having sum(lines) <> 0 or sum(priced_lines) <> 0 or sum(revenue) <> 0 or sum(units) <> 0
       on conflict (key) do update set lines = t.lines + excluded.lines,
         priced_lines = t.priced_lines + excluded.priced_lines, revenue = t.revenue + excluded.revenue, units = t.units + excluded.units
       returning t.key, t.lines`;
  const { rows: emptied } = await trx.raw(
    `with d as materialized (
       select ${GROUP.join(', ')}, ${sums('')} from (${confirmed}) n
       union all select ${GROUP.join(', ')}, ${sums('-')} from (${held}) o),
     skus as (${upsert(SALES_SKUS_TABLE, GROUP)}),
     listings as (${upsert(SALES_LISTINGS_TABLE, LISTING_GROUP)})
     select key, '${SALES_SKUS_TABLE}' as "table" from skus where lines = 0
     union all select key, '${SALES_LISTINGS_TABLE}' from listings where lines = 0`,
    [...scopes, ...scopes],
  );
  for (const table of [SALES_SKUS_TABLE, SALES_LISTINGS_TABLE]) {
    const keys = (emptied as Array<{ key: string; table: string }>).filter((r) => r.table === table).map((r) => r.key);
    if (keys.length) await trx.raw(`delete from ${s(table)} where key = any(?::uuid[])`, [keys]);
  }
  await trx.raw(`delete from ${s(SALES_LINES_TABLE)} x using ${SCOPES} where ${inScopes('x')}`, scopes);
  await trx.raw(
    `insert into ${s(SALES_LINES_TABLE)} (${LINE_COLUMNS.join(', ')}, key, sold_at, local_day)
     select ${LINE_COLUMNS.map((c) => `x.${c}`).join(', ')}, ${groupKeySql(GROUP, 'x.account_id', (c) => `x.${c}`)}, x.purchased_at, x.local_day
     from (${confirmed}) x`,
    scopes,
  );
  await refreshDays(trx, schema, unique, tables.orders);
}

/** Sums the scopes' orders and sales lines again into `sales_days` (each scope once; its days whole, whatever page changed). */
async function refreshDays(
  trx: Knex.Transaction,
  schema: string,
  changed: readonly ChangedScope[],
  ordersTable: string,
): Promise<void> {
  const s = (table: string) => `"${schema}"."${table}"`;
  const key = 'marketplace_id, day, local_day, currency, order_status, is_business_order';
  const dayOf = (alias: string) =>
    `(${alias}.purchased_at at time zone 'UTC')::date as day, ${localDaySql(`${alias}.purchased_at`, `${alias}.marketplace_id`)} as local_day`;
  const sold = `(x.sold_at at time zone 'UTC')::date as day, x.local_day`;
  // whole scopes: no page named
  const scopes = scopeBindings(changed.map(({ account_id, scope }) => ({ account_id, scope })));
  await trx.raw(
    `delete from ${s(SALES_DAYS_TABLE)} d using ${SCOPES} where d.account_id = w.account_id and d.scope = w.scope`,
    scopes,
  );
  await trx.raw(
    `insert into ${s(SALES_DAYS_TABLE)} (account_id, scope, ${key}, orders, orders_with_lines, lines, priced_lines, revenue, units)
     select account_id, scope, ${key}, sum(orders), sum(orders_with_lines), sum(lines), sum(priced_lines), sum(revenue), sum(units)
     from (
       select o.account_id, o.scope, o.marketplace_id, ${dayOf('o')}, o.currency, o.order_status, o.is_business_order,
         1 as orders, (o.line_count > 0)::int as orders_with_lines, 0 as lines, 0 as priced_lines, 0 as revenue, 0 as units
       from ${s(ordersTable)} o ${joinScopes('o')}
       join ${s(ORDER_SCOPES_TABLE)} c on c.account_id = o.account_id and c.scope = o.scope and o.page < c.pages
       union all
       select x.account_id, x.scope, x.marketplace_id, ${sold}, x.currency, x.order_status, x.is_business_order,
         0, 0, 1, (x.price is not null)::int, coalesce(x.price, 0), x.quantity
       from ${s(SALES_LINES_TABLE)} x ${joinScopes('x')}
     ) d
     group by account_id, scope, ${key}`,
    [...scopes, ...scopes],
  );
}
