import type { Knex } from 'knex';
import { prepared } from '../../infra/db.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { INVENTORY_TABLE } from './inventory.js';
import {
  CURRENT_LISTINGS_TABLE,
  LISTINGS_TABLE,
  SCOPES_TABLE,
  type FulfillmentChannel,
  type ListingStatus,
} from './listings.js';
import { INVENTORY_DATASET } from '../../domain/observation/datasets.js';

// list_listings' read: the current listings of complete reads (`listing_current`), with the
// filters in SQL. Filtering, counting and ordering run on that narrow table; the wide rows
// (raw items, FBA inventory) are read for the returned page only.

export interface ListingFilters {
  account_ids: readonly string[];
  /** substring of title or SKU (case-insensitive), or the exact ASIN */
  keyword?: string | undefined;
  asin?: string | undefined;
  sku?: string | undefined;
  marketplace_id?: string | undefined;
  /** created_at at or after */
  since?: Date | null;
  /** created_at before */
  until?: Date | null;
  limit: number;
}

export interface ListingRecord {
  account_id: string;
  sku: string;
  marketplace_id: string;
  asin: string | null;
  title: string | null;
  product_type: string | null;
  status: ListingStatus | null;
  currency: string | null;
  price: string | null;
  b2b_price: string | null;
  floor: string | null;
  ceiling: string | null;
  fulfillment_channel: FulfillmentChannel | null;
  condition_type: string | null;
  condition: string | null;
  handling_time: number | null;
  restock_date: string | null;
  shipping_group: string | null;
  created_at: Date | null;
  /** the marketplace's status array as reported; null until reported */
  statuses: string[] | null;
  /** available quantity (merchant-fulfilled availability); null when not reported */
  quantity: number | null;
  data: { listings_item?: Record<string, unknown> };
  /** the FBA inventory summary of the inventory sync's last complete read; null when none */
  fba_inventory: Record<string, unknown> | null;
}

const rm = READ_MODEL_SCHEMA;

/** The wide row of each current listing of relation `p` (listing_current rows), with its FBA inventory summary. */
const WIDE = `
  l.account_id, l.sku, l.marketplace_id, l.asin, l.title, l.product_type, l.status, l.currency, l.price, l.b2b_price, l.floor, l.ceiling,
  l.fulfillment_channel, l.condition_type, l.condition, l.handling_time, to_char(l.restock_date, 'YYYY-MM-DD') as restock_date,
  l.shipping_group, l.created_at, l.statuses, l.quantity, l.data, inv.data as fba_inventory
from page p
join ${rm}.${LISTINGS_TABLE} l on (l.account_id, l.scope, l.page, l.row) = (p.account_id, p.scope, p.page, p.row)
left join lateral (
  select i.data from ${rm}.${INVENTORY_TABLE} i
  join ${rm}.observed_scopes si on si.account_id = i.account_id and si.dataset = '${INVENTORY_DATASET}' and si.scope = i.scope and i.page < si.pages
  where i.account_id = l.account_id and i.marketplace_id = l.marketplace_id and i.sku = l.sku
  order by i.page desc limit 1
) inv on true`;

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of matching listings, newest first, and how many match in all. */
export async function searchListings(db: Knex, f: ListingFilters): Promise<{ rows: ListingRecord[]; total: number }> {
  const where: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  const add = (sql: string, ...values: Knex.RawBinding[]) => {
    where.push(sql);
    bindings.push(...values);
  };
  if (f.marketplace_id !== undefined) add('c.marketplace_id = ?', f.marketplace_id);
  const counted = where.length;
  if (f.sku !== undefined) add('c.sku = ?', f.sku);
  if (f.asin !== undefined) add('c.asin = upper(?)', f.asin);
  if (f.keyword !== undefined)
    add(
      '(c.title ilike ? or c.sku ilike ? or c.asin = upper(?))',
      likePattern(f.keyword),
      likePattern(f.keyword),
      f.keyword,
    );
  if (f.since) add('c.created_at >= ?', f.since);
  if (f.until) add('c.created_at < ?', f.until);
  const matching = where.map((w) => ` and ${w}`).join('');
  const order = 'order by created_at desc nulls last, account_id, marketplace_id, sku';
  // Without filters beyond the marketplace: each account's newest first (the index's order),
  // then the accounts merged; the total from the scopes' counts. With filters: the matches by
  // their indexes (trigrams, ASIN, SKU), counted and sorted; walking the newest-first index and
  // testing each row would read every row when few match.
  const unfiltered = where.length === counted;
  const sql = unfiltered
    ? `
with page as (select p.* from unnest(?::uuid[]) a(account_id) cross join lateral (
    select c.* from ${rm}.${CURRENT_LISTINGS_TABLE} c where c.account_id = a.account_id${matching}
    order by c.created_at desc nulls last, c.marketplace_id, c.sku limit ?) p
  ${order} limit ?)
select (select coalesce(sum(s.listings), 0) from ${rm}.${SCOPES_TABLE} s
  where s.account_id = any(?::uuid[])${f.marketplace_id === undefined ? '' : ' and s.scope = ?'})::int as total, ${WIDE}
order by p.created_at desc nulls last, p.account_id, p.marketplace_id, p.sku`
    : `
with matches as materialized (select c.* from ${rm}.${CURRENT_LISTINGS_TABLE} c where c.account_id = any(?::uuid[])${matching}),
page as (select * from matches ${order} limit ?)
select (select count(*) from matches)::int as total, ${WIDE}
order by p.created_at desc nulls last, p.account_id, p.marketplace_id, p.sku`;
  const read = (conn: Knex | Knex.Transaction) =>
    conn.raw(
      sql,
      unfiltered
        ? [[...f.account_ids], ...bindings, f.limit, f.limit, [...f.account_ids], ...bindings]
        : [[...f.account_ids], ...bindings, f.limit],
    );
  // The planner prices ILIKE far below its cost (every row's title and SKU case-folded) and
  // scans the table when a keyword may match many rows ('black' at 100,000 listings: 258 ms,
  // against 68 ms by the trigram indexes): a keyword is always looked up by its indexes.
  const { rows }: { rows: Array<ListingRecord & { total: number }> } =
    f.keyword === undefined
      ? await read(db)
      : await db.transaction(async (trx) => {
          await trx.raw('set local enable_seqscan = off');
          return read(trx);
        });
  // limit ≥ 1, so an empty page means nothing matched
  return { rows: rows.map(({ total: _, ...r }) => r), total: rows[0]?.total ?? 0 };
}

/** What a marketplace message names of a listing: SKU or ASIN, in a marketplace when it says which. */
export interface ListingMention {
  sku: string | null;
  asin: string | null;
  marketplace_id: string | null;
}

/**
 * The account's current listings a message names (deleted ones included: the message reached
 * them), by SKU, else by ASIN (every SKU with it), within the named marketplace when there is
 * one; each once, ordered by marketplace and SKU.
 */
export async function listingsMentioned(
  db: Knex,
  account_id: string,
  mentions: readonly ListingMention[],
): Promise<ListingRecord[]> {
  return (await listingsMentionedEach(db, account_id, [mentions]))[0]!;
}

/** listingsMentioned for several messages at once (a live batch's), in one statement: each message's listings. */
export async function listingsMentionedEach(
  db: Knex,
  account_id: string,
  messages: ReadonlyArray<readonly ListingMention[]>,
): Promise<ListingRecord[][]> {
  const named = messages.flatMap((mentions, m) =>
    mentions.filter((x) => x.sku !== null || x.asin !== null).map((x) => ({ ...x, m })),
  );
  const each: ListingRecord[][] = messages.map(() => []);
  if (named.length === 0) return each;
  // Each mention looked up by its own index, in its marketplace or in each of the account's listing
  // scopes (a scope is a marketplace): one join on "SKU, or else ASIN" was planned as a bitmap OR
  // over the SKU trigram index and the ASIN index, three times the cost of this in a live run.
  const { rows } = await prepared<{ rows: Array<ListingRecord & { m: number }> }>(() =>
    db.raw(
      `with m as (select * from jsonb_to_recordset(?::jsonb) as m(sku text, asin text, marketplace_id text, m int)),
mk as (select m.m, m.sku, m.asin, coalesce(m.marketplace_id, s.scope) as marketplace_id from m
  left join ${rm}.${SCOPES_TABLE} s on m.marketplace_id is null and s.account_id = ?),
page as (select distinct mk.m, c.* from mk cross join lateral (
  select c.* from ${rm}.${CURRENT_LISTINGS_TABLE} c
    where c.account_id = ? and c.marketplace_id = mk.marketplace_id and c.sku = mk.sku
  union all
  select c.* from ${rm}.${CURRENT_LISTINGS_TABLE} c
    where c.account_id = ? and c.marketplace_id = mk.marketplace_id and mk.sku is null and c.asin = mk.asin) c)
select p.m, ${WIDE}
order by p.m, p.marketplace_id, p.sku`,
      [JSON.stringify(named), account_id, account_id, account_id],
    ),
  );
  for (const { m, ...row } of rows) each[m]!.push(row);
  return each;
}
