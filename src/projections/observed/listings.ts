import type { Knex } from 'knex';
import { observationEventSchemas, type ObservationEvent } from '../../domain/observation/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import { READ_MODEL_SCHEMA, type Projection } from '../projection.js';
import { completeReads, minorUnits, replacePages } from './economics-support.js';
import { arr, int, obj, str, type Json } from '../../domain/shared/json.js';
import { ofDatasets, pageTableSpec } from './page-table.js';
import { bindableRuns, columnsOf, createTables, type TableSpec } from '../tables.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import { LISTINGS_DATASET } from '../../domain/observation/datasets.js';
import { listingId } from '../../domain/observation/ids.js';

// Listings (dataset `listings`, scope the marketplace id): one row per SKU per marketplace,
// the Listings Items API item as sent under `data.listings_item`, and typed columns read
// from it. Money in minor units of the marketplace currency.
//
// `listing_current` is the narrow index of the listings of complete reads
// (docs/observed-data.md): one row per (account, marketplace, SKU) pointing at its row in
// `listings` (a SKU on two pages of a read: the later page), with what list_listings filters
// and sorts on. The projection keeps its own page count per scope (`listing_scopes`, from
// SyncCompleted), so the index follows the event order exactly; a page re-picks the current
// row of the SKUs it held or holds, a new page count re-picks the whole scope.

export const LISTINGS_TABLE = 'listings';
export const CURRENT_LISTINGS_TABLE = 'listing_current';
export const SCOPES_TABLE = 'listing_scopes';
/** the listing behind each local listing id (a hash of account, marketplace and SKU, so it can't be
 * read back); an id stays once seen, admission checks the listing is current */
export const LISTING_TARGETS_TABLE = 'listing_targets';

/** `attributes[name]` values for this marketplace (values without a marketplace apply to all). */
const attributeValues = (item: Json, name: string, marketplaceId: string): Json[] =>
  arr(obj(item.attributes)?.[name])
    .map(obj)
    .filter(
      (v): v is Json => v !== undefined && (v.marketplace_id === undefined || v.marketplace_id === marketplaceId),
    );

/** `[{ schedule: [{ value_with_tax }] }]` (our_price, minimum/maximum_seller_allowed_price) in major units. */
const scheduleAmount = (v: unknown): number | null => {
  const amount = obj(arr(obj(arr(v)[0])?.schedule)[0])?.value_with_tax;
  const n = typeof amount === 'string' ? Number(amount) : amount;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

/** The `status` column's values (spec 3.5); null: unknown. */
export const LISTING_STATUSES = ['BUYABLE', 'DISCOVERABLE', 'DELETED'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];
/** The `fulfillment_channel` column's values: fulfilled by Amazon, or by the merchant. */
export const FULFILLMENT_CHANNELS = ['FBA', 'MFN'] as const;
export type FulfillmentChannel = (typeof FULFILLMENT_CHANNELS)[number];

/** The marketplace's status array reduced to one value: DELETED, BUYABLE, DISCOVERABLE, or null when none is reported. */
function statusOf(statuses: string[] | null): ListingStatus | null {
  if (statuses === null) return null;
  return (['DELETED', 'BUYABLE', 'DISCOVERABLE'] as const).find((s) => statuses.includes(s)) ?? null;
}

/** One listings item (of one marketplace's search) as a row; null when it has no SKU. */
export function listingRow(raw: unknown, marketplaceId: string): Record<string, unknown> | null {
  const item = obj(raw);
  const sku = str(item?.sku);
  if (!item || !sku) return null;
  const summary = arr(item.summaries)
    .map(obj)
    .find((s) => s?.marketplaceId === marketplaceId);
  const statuses = Array.isArray(summary?.status)
    ? (summary.status as unknown[]).filter((s): s is string => typeof s === 'string')
    : null;
  const offers = attributeValues(item, 'purchasable_offer', marketplaceId);
  const consumer = offers.find((o) => o.audience === undefined || o.audience === 'ALL');
  const business = offers.find((o) => o.audience === 'B2B');
  const wireOffers = arr(item.offers)
    .map(obj)
    .filter((o) => o?.marketplaceId === marketplaceId);
  const currency = str(consumer?.currency) ?? str(business?.currency) ?? str(obj(wireOffers[0]?.price)?.currencyCode);
  const money = (major: number | null) => (major === null || currency === null ? null : minorUnits(major, currency));
  const wirePrice = (offerType: string) => {
    const amount = obj(wireOffers.find((o) => o?.offerType === offerType)?.price)?.amount;
    return typeof amount === 'string' ? Number(amount) : null;
  };
  const availability = attributeValues(item, 'fulfillment_availability', marketplaceId)[0];
  const channelCode =
    str(availability?.fulfillment_channel_code) ??
    str(obj(arr(item.fulfillmentAvailability)[0])?.fulfillmentChannelCode);
  const conditionType =
    str(summary?.conditionType) ?? str(attributeValues(item, 'condition_type', marketplaceId)[0]?.value);
  return {
    sku,
    marketplace_id: marketplaceId,
    asin: str(summary?.asin),
    title: str(summary?.itemName) ?? str(attributeValues(item, 'item_name', marketplaceId)[0]?.value),
    product_type: str(summary?.productType),
    status: statusOf(statuses),
    statuses: statuses === null ? null : JSON.stringify(statuses),
    currency,
    price: money(scheduleAmount(consumer?.our_price) ?? wirePrice('B2C')),
    b2b_price: money(scheduleAmount(business?.our_price) ?? wirePrice('B2B')),
    floor: money(scheduleAmount(consumer?.minimum_seller_allowed_price)),
    ceiling: money(scheduleAmount(consumer?.maximum_seller_allowed_price)),
    // DEFAULT is the merchant's own network; AMAZON_NA, AMAZON_EU, ... are FBA's.
    fulfillment_channel:
      channelCode === null ? (str(summary?.fnSku) ? 'FBA' : null) : channelCode === 'DEFAULT' ? 'MFN' : 'FBA',
    condition_type: conditionType,
    condition: conditionType === null ? null : conditionType.split('_')[0]!,
    handling_time: int(availability?.lead_time_to_ship_max_days),
    restock_date: str(availability?.restock_date)?.slice(0, 10) ?? null,
    shipping_group: str(attributeValues(item, 'merchant_shipping_group', marketplaceId)[0]?.value),
    quantity: int(availability?.quantity),
    created_at: str(summary?.createdDate),
    last_updated_at: str(summary?.lastUpdatedDate),
    data: JSON.stringify({ listings_item: item }),
  };
}

/** Re-picks the current row of the scope's SKUs (all of them, or those given) from the rows
 * of pages below the scope's complete read, and keeps the scope's count of current rows. */
async function repickCurrent(
  trx: Knex.Transaction,
  schema: string,
  account_id: string,
  scope: string,
  skus: readonly string[] | null,
): Promise<void> {
  const current = trx.withSchema(schema).table(CURRENT_LISTINGS_TABLE).where({ account_id, marketplace_id: scope });
  // the SKUs as one array parameter: a batch's scope may name tens of thousands
  const removed = await (skus === null ? current : current.whereRaw('sku = any(?::text[])', [[...skus]])).delete();
  const columns = CURRENT_COLUMNS.map((c) => `l.${c}`).join(', ');
  // A page's SKUs: each looked up by (account, scope, SKU, page), whatever the planner guesses of a
  // table without statistics (a rebuild's); it took the primary key and read the whole scope per page.
  const { rowCount: added } = await trx.raw(
    skus === null
      ? `insert into ??.${CURRENT_LISTINGS_TABLE} (${CURRENT_COLUMNS.join(', ')})
     select distinct on (l.sku) ${columns}
     from ??.${LISTINGS_TABLE} l join ??.${SCOPES_TABLE} s on s.account_id = l.account_id and s.scope = l.scope and l.page < s.pages
     where l.account_id = ? and l.scope = ?
     order by l.sku, l.page desc, l.row desc`
      : `insert into ??.${CURRENT_LISTINGS_TABLE} (${CURRENT_COLUMNS.join(', ')})
     select ${columns}
     from ??.${SCOPES_TABLE} s cross join unnest(?::text[]) k(sku)
     cross join lateral (select * from ??.${LISTINGS_TABLE} l
       where l.account_id = s.account_id and l.scope = s.scope and l.sku = k.sku and l.page < s.pages
       order by l.page desc, l.row desc limit 1) l
     where s.account_id = ? and s.scope = ?`,
    skus === null
      ? [schema, schema, schema, account_id, scope]
      : [schema, schema, [...skus], schema, account_id, scope],
  );
  if (added !== removed)
    await trx
      .withSchema(schema)
      .table(SCOPES_TABLE)
      .where({ account_id, scope })
      .increment('listings', (added as number) - removed);
}

const LISTINGS_TABLES: Record<string, TableSpec> = {
  [LISTINGS_TABLE]: pageTableSpec(
    {
      sku: 'text',
      marketplace_id: 'text',
      asin: 'text null',
      title: 'text null',
      product_type: 'text null',
      status: 'text null',
      statuses: 'jsonb null',
      currency: 'text null',
      ...columnsOf(['price', 'b2b_price', 'floor', 'ceiling'], 'bigint null'),
      fulfillment_channel: 'text null',
      condition_type: 'text null',
      condition: 'text null',
      handling_time: 'integer null',
      restock_date: 'date null',
      shipping_group: 'text null',
      quantity: 'integer null',
      created_at: 'timestamptz null',
      last_updated_at: 'timestamptz null',
      data: 'jsonb',
    },
    { indexes: [['account_id', 'scope', 'sku', 'page']] },
  ),
  [CURRENT_LISTINGS_TABLE]: {
    columns: {
      account_id: 'uuid',
      marketplace_id: 'text',
      sku: 'text',
      scope: 'text',
      page: 'integer',
      row: 'integer',
      created_at: 'timestamptz null',
      asin: 'text null',
      title: 'text null',
      status: 'text null',
    },
    primary: ['account_id', 'marketplace_id', 'sku'],
    indexes: [
      // admission: does the account list this ASIN in the marketplace (spec 4.12.5)
      ['account_id', 'marketplace_id', 'asin'],
    ],
  },
  [LISTING_TARGETS_TABLE]: {
    columns: { listing_id: 'uuid primary', account_id: 'uuid', marketplace_id: 'text', sku: 'text' },
    // patch_listing: the marketplaces an account's SKU was seen in
    indexes: [['account_id', 'sku']],
  },
  [SCOPES_TABLE]: {
    // listings: how many rows of listing_current the scope has (list_listings' total without filters)
    columns: { account_id: 'uuid', scope: 'text', pages: 'integer', listings: 'integer' },
    primary: ['account_id', 'scope'],
  },
};

/** listing_current's columns, in the order a re-pick inserts them. */
const CURRENT_COLUMNS = Object.keys(LISTINGS_TABLES[CURRENT_LISTINGS_TABLE]!.columns);

/** list_listings' access paths on listing_current (listings-search.ts). */
async function createSearchIndexes(db: Knex | Knex.Transaction, schema: string): Promise<void> {
  // a trusted extension (PostgreSQL 13+): the database owner may create it; two migrations at once are fine
  await db.raw(`do $$ begin
    create extension if not exists pg_trgm with schema public;
  exception when duplicate_object or unique_violation then null;
  end $$`);
  const index = (name: string, definition: string) =>
    db.raw(`create index ?? on ??.${CURRENT_LISTINGS_TABLE} ${definition}`, [
      `${CURRENT_LISTINGS_TABLE}_${name}`,
      schema,
    ]);
  // newest first, one account at a time: the page is the index's first rows
  await index('newest', '(account_id, created_at desc nulls last, marketplace_id, sku)');
  // keyword: substring of title or SKU in any case (trigrams), or the exact ASIN
  await index('title_trigrams', 'using gin (title public.gin_trgm_ops)');
  await index('sku_trigrams', 'using gin (sku public.gin_trgm_ops)');
  await index('asin', '(asin)');
}

export const listingsProjection: Projection = {
  name: 'listings',
  // 2: listing_current and listing_scopes (list_listings); 4: listing_current.status (titles of the sales
  // reads), listing_scopes.listings and the search indexes; 5: listing_targets (from admission, so a listing
  // list_listings shows is one patch_listing finds)
  version: 5,
  handles: ['PageObserved', 'SyncCompleted'],
  filter: ofDatasets([LISTINGS_DATASET]),
  tables: Object.keys(LISTINGS_TABLES),
  async createTables(db, schema) {
    await createTables(db, schema, LISTINGS_TABLES);
    await createSearchIndexes(db, schema);
  },
  apply: (trx, event, schema) => applyListings(trx, [event], schema),
  applyMany: applyListings,
};

/**
 * A batch of listings events, set-based: the pages' rows replaced, a target kept for every SKU a
 * page of the batch names (an id stays once seen, so also one a later page of the batch drops),
 * the batch's page counts stored (the last of each scope's), then `listing_current` re-picked once
 * per scope touched: wholly where the batch completed a read, else for the SKUs its pages held
 * before or name now. The re-pick reads only the tables as the batch leaves them, so doing it once
 * at the end leaves what one event at a time leaves.
 */
async function applyListings(trx: Knex.Transaction, events: readonly RecordedEvent[], schema: string): Promise<void> {
  const observed = events
    .map((event) => parseEvent<ObservationEvent>(observationEventSchemas, event))
    .filter((e) => e.data.dataset === LISTINGS_DATASET);
  const pages = observed.flatMap((e) =>
    e.type === 'PageObserved'
      ? [{ page: e.data, rows: e.data.rows.map((raw) => listingRow(raw, e.data.scope)).filter((r) => r !== null) }]
      : [],
  );
  const pageKeys = [
    ...new Map(
      pages.map(({ page: p }) => [`${p.account_id}/${p.scope}/${p.page}`, [p.account_id, p.scope, p.page]]),
    ).values(),
  ];
  const before: Array<{ account_id: string; scope: string; sku: string }> = [];
  for (const chunk of bindableRuns(pageKeys))
    before.push(
      ...(await trx
        .withSchema(schema)
        .table(LISTINGS_TABLE)
        .whereIn(['account_id', 'scope', 'page'], chunk)
        .select('account_id', 'scope', 'sku')),
    );
  const named = pages.flatMap(({ page, rows }) =>
    rows.map((r) => ({ account_id: page.account_id, scope: page.scope, sku: r.sku as string })),
  );
  await replacePages(trx, schema, LISTINGS_TABLE, pages);
  const targets = [...new Map(named.map((r) => [listingId(r.account_id, r.scope, r.sku), r])).entries()].map(
    ([listing_id, r]) => ({ listing_id, account_id: r.account_id, marketplace_id: r.scope, sku: r.sku }),
  );
  for (const chunk of bindableRuns(targets))
    await trx.withSchema(schema).table(LISTING_TARGETS_TABLE).insert(chunk).onConflict('listing_id').ignore();
  const completed = new Map<string, { account_id: string; scope: string; pages: number }>();
  for (const e of observed)
    if (e.type === 'SyncCompleted')
      completed.set(`${e.data.account_id}/${e.data.scope}`, {
        account_id: e.data.account_id,
        scope: e.data.scope,
        pages: e.data.pages,
      });
  if (completed.size)
    await trx
      .withSchema(schema)
      .table(SCOPES_TABLE)
      .insert([...completed.values()].map((c) => ({ ...c, listings: 0 })))
      .onConflict(['account_id', 'scope'])
      .merge(['pages']);
  const touched = new Map<string, { account_id: string; scope: string; skus: Set<string> }>();
  const touch = (account_id: string, scope: string) => {
    const key = `${account_id}/${scope}`;
    if (!touched.has(key)) touched.set(key, { account_id, scope, skus: new Set() });
    return touched.get(key)!.skus;
  };
  for (const r of [...before, ...named]) touch(r.account_id, r.scope).add(r.sku);
  for (const { account_id, scope } of completed.values()) touch(account_id, scope);
  for (const [key, { account_id, scope, skus }] of touched)
    await repickCurrent(trx, schema, account_id, scope, completed.has(key) ? null : [...skus]);
}

/** SQL of the listings of complete reads, one row per (account, marketplace, SKU), deleted ones
 * included: the rows `listing_current` points at. The views pick them from the rows themselves:
 * joined to order lines, this form plans well even before the tables have statistics. */
export const currentListingsSql = `select distinct on (l.account_id, l.marketplace_id, l.sku) l.*
from ${READ_MODEL_SCHEMA}.${LISTINGS_TABLE} l
${completeReads('l', LISTINGS_DATASET)}
order by l.account_id, l.marketplace_id, l.sku, l.scope, l.page desc`;

/** The ASINs the account lists in a marketplace (complete reads, deleted listings included),
 * sorted; null while the marketplace's listings have no complete read yet. */
export async function listedAsins(db: Knex, account_id: string, marketplace_id: string): Promise<string[] | null> {
  const read = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('observed_scopes')
    .where({ account_id, dataset: LISTINGS_DATASET, scope: marketplace_id })
    .first('pages');
  if (!read) return null;
  const { rows }: { rows: { asin: string }[] } = await db.raw(
    `select distinct l.asin from (${currentListingsSql}) l where l.account_id = ? and l.marketplace_id = ? and l.asin is not null order by l.asin`,
    [account_id, marketplace_id],
  );
  return rows.map((r) => r.asin);
}
