import type { Knex } from 'knex';
import { prepared } from '../../infra/db.js';
import { readCheckpoint } from '../checkpoints.js';
import type { Keyset } from '../keyset.js';
import { ADS_TABLES } from '../observed/ads.js';
import { CURRENT_LISTINGS_TABLE } from '../observed/listings.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { EVENT_TARGETS_TABLE, EVENTS_TABLE, eventsProjection } from './projection.js';

// Reads of the events read model. What an event names (ASIN, SKU, provider ids) is matched to the
// account's listings and campaigns here, at read time: a listing synced after the event still gets
// named, and the stored rows stay a pure function of the messages.

export interface EventFilter {
  account_ids: readonly string[];
  stream_type?: string | undefined;
  /** inclusive */
  since?: Date | null;
  /** exclusive */
  until?: Date | null;
  asin?: string | undefined;
  sku?: string | undefined;
  marketplace_id?: string | undefined;
  /** at least 1 */
  limit: number;
  /** the console's timeline: after `before` newest first by (occurred_at, id), and no total */
  timeline?: { before: Keyset | null };
}

/** One thing an event names, matched to the account's listing or campaign when it has one. */
export interface EventTarget {
  asin: string | null;
  sku: string | null;
  marketplace_id: string | null;
  /** the listing's title; null when no listing of the account matched */
  title: string | null;
  listed: boolean;
  campaign_id: string | null;
  campaign_name: string | null;
  ad_group_id: string | null;
  ad_id: string | null;
  target_id: string | null;
}

export interface EventRecord {
  id: string;
  account_id: string;
  stream: string | null;
  stream_type: string | null;
  synthetic: boolean;
  /** a synthetic row's `listing_push_answer` or `listing_read` */
  synthetic_kind: string | null;
  occurred_at: Date;
  received_at: Date;
  targets: EventTarget[];
}

const rm = (table: string) => `${READ_MODEL_SCHEMA}.${table}`;

/**
 * The targets of event `e`: each identity row, widened to every listing of the account it names
 * (by SKU, else by ASIN; within its marketplace when it names one), and its campaign's name.
 */
const TARGETS = `
  select coalesce(l.asin, t.asin) as asin, coalesce(l.sku, t.sku) as sku,
         coalesce(l.marketplace_id, t.marketplace_id) as marketplace_id, l.title, l.sku is not null as listed,
         t.campaign_id, c.name as campaign_name, t.ad_group_id, t.ad_id, t.target_id, t.ord
    from ${rm(EVENT_TARGETS_TABLE)} t
    left join ${rm(CURRENT_LISTINGS_TABLE)} l
      on l.account_id = e.account_id
     and (t.sku = l.sku or (t.sku is null and t.asin = l.asin))
     and (t.marketplace_id is null or t.marketplace_id = l.marketplace_id)
    left join lateral (
      select name from ${rm(ADS_TABLES.campaigns)} ac
       where ac.account_id = e.account_id and ac.provider_id = t.campaign_id limit 1
    ) c on true
   where t.event_id = e.id`;

const COLUMNS = `
  e.id, e.account_id, e.stream, e.stream_type, e.synthetic, e.occurred_at, e.received_at,
  case when e.synthetic then e.payload->>'kind' end as synthetic_kind,
  coalesce((select jsonb_agg(to_jsonb(x) - 'ord' order by x.ord, x.marketplace_id, x.sku)
              from (${TARGETS}) x), '[]'::jsonb) as targets`;

/** Events of the accounts, newest first by occurred_at, and how many match before `limit`. */
export async function searchEvents(db: Knex, f: EventFilter): Promise<{ rows: EventRecord[]; total: number }> {
  if (f.account_ids.length === 0) return { rows: [], total: 0 };
  const where = ['e.account_id = any(?::uuid[])'];
  const bindings: Knex.RawBinding[] = [[...f.account_ids]];
  const add = (sql: string, value: Knex.RawBinding) => {
    where.push(sql);
    bindings.push(value);
  };
  if (f.stream_type !== undefined) add('e.stream_type = ?', f.stream_type);
  if (f.since) add('e.occurred_at >= ?', f.since);
  if (f.until) add('e.occurred_at < ?', f.until);
  // a listing filter holds when one target matches every listing filter given
  const listing: string[] = [];
  const listingBindings: string[] = [];
  for (const [column, value] of [
    ['asin', f.asin],
    ['sku', f.sku],
    ['marketplace_id', f.marketplace_id],
  ] as const) {
    if (value === undefined) continue;
    listing.push(`x.${column} = ?`);
    listingBindings.push(value);
  }
  if (listing.length > 0) {
    where.push(`exists (select 1 from (${TARGETS}) x where ${listing.join(' and ')})`);
    bindings.push(...listingBindings);
  }
  if (f.timeline?.before) {
    where.push('(e.occurred_at, e.id) < (?::timestamptz, ?::uuid)');
    bindings.push(f.timeline.before.at, f.timeline.before.id);
  }
  // a timeline page has no total: counting every match would read the account's whole month
  const total = f.timeline ? 'null::bigint' : 'count(*) over ()';
  const { rows } = await db.raw(
    `with page as (
       select e.id, e.occurred_at, ${total} as total
         from ${rm(EVENTS_TABLE)} e
        where ${where.join(' and ')}
        order by e.occurred_at desc, e.id desc
        limit ?)
     select ${COLUMNS}, p.total from ${rm(EVENTS_TABLE)} e join page p on p.id = e.id
     order by e.occurred_at desc, e.id desc`,
    [...bindings, f.limit],
  );
  // the page starts at the newest match and holds at least one row: empty means none matched. (A
  // second count would read another snapshot, and an event committed in between would show in the
  // total but not in the rows.)
  return { rows: rows as EventRecord[], total: rows.length === 0 ? 0 : Number(rows[0].total) };
}

/** One event of the accounts, with its payload; undefined when none of them has it. */
export async function findEvent(
  db: Knex,
  account_ids: readonly string[],
  id: string,
): Promise<(EventRecord & { payload: unknown }) | undefined> {
  const { rows } = await db.raw(
    `select ${COLUMNS}, e.payload from ${rm(EVENTS_TABLE)} e where e.id = ? and e.account_id = any(?::uuid[])`,
    [id, [...account_ids]],
  );
  return rows[0];
}

/**
 * The oldest marketplace messages due (at most `limit`), with the store stream each came from: received before
 * `received`, except the hourly types, due when the hour they describe is before `hourly.before`.
 */
export async function expiredEvents(
  db: Knex,
  cutoffs: { received: Date; hourly: { types: readonly string[]; before: Date } },
  limit: number,
): Promise<{ id: string; stream: string | null }[]> {
  const { types, before } = cutoffs.hourly;
  return (
    db
      .withSchema(READ_MODEL_SCHEMA)
      .table(EVENTS_TABLE)
      // a synthetic row goes with its receipt (mutations/retention.ts), so a rebuild never brings it back
      .where({ synthetic: false })
      .andWhere((due) =>
        due
          .where((q) => q.where('received_at', '<', cutoffs.received).whereNotIn('stream_type', [...types]))
          // an hourly message's occurred_at is the hour it describes
          .orWhere((q) => q.whereIn('stream_type', [...types]).where('occurred_at', '<', before)),
      )
      .orderBy('received_at')
      .limit(limit)
      .select('id', 'stream')
  );
}

/** Retention: deletes these events' rows (their targets go with them). */
export async function deleteEventRows(db: Knex, ids: readonly string[]): Promise<void> {
  await db
    .withSchema(READ_MODEL_SCHEMA)
    .table(EVENTS_TABLE)
    .whereIn('id', [...ids])
    .delete();
}

type Latest = Map<string, Record<string, unknown>>;
type Listing = { sku: string; asin: string | null; marketplace_id: string };
export type LatestRow = { stream_type: string; payload: Record<string, unknown> };
export const latestOf = (rows: readonly LatestRow[]): Latest => new Map(rows.map((r) => [r.stream_type, r.payload]));

/** The latest recorded message of each of these types that names the listing (by SKU, else ASIN, in its marketplace): rows of `{ stream_type, payload }`. */
export function latestNamingQuery(db: Knex, account_id: string, types: readonly string[], listing: Listing): Knex.Raw {
  // per type, the latest target row naming the listing by its SKU and the latest naming its ASIN
  // without a SKU (an index probe each, passing over other marketplaces' rows), the later of the two
  const probe = (key: string) => `(select t.event_id, t.occurred_at, t.received_at from ${rm(EVENT_TARGETS_TABLE)} t
      where t.account_id = ? and ${key} and t.stream_type = ty.stream_type and (t.marketplace_id is null or t.marketplace_id = ?)
      order by t.occurred_at desc, t.received_at desc limit 1)`;
  // the types as a list of rows, not an array of unknown length: PostgreSQL settles on one plan
  const relation = `(values ${types.map(() => '(?::text)').join(', ')})`;
  return db.raw(
    `select ty.stream_type, e.payload from ${relation} ty(stream_type)
     cross join lateral (
       select x.event_id from (${probe('t.sku = ?')} union all ${probe('t.sku is null and t.asin = ?')}) x
       order by x.occurred_at desc, x.received_at desc limit 1
     ) latest
     join ${rm(EVENTS_TABLE)} e on e.id = latest.event_id`,
    [...types, account_id, listing.sku, listing.marketplace_id, account_id, listing.asin, listing.marketplace_id],
  );
}

/** latestNamingQuery's answer. */
export async function latestNaming(
  db: Knex,
  account_id: string,
  types: readonly string[],
  listing: Listing,
): Promise<Latest> {
  try {
    const { rows } = await prepared<{ rows: LatestRow[] }>(() => latestNamingQuery(db, account_id, types, listing));
    return latestOf(rows);
  } catch (err) {
    // tables of version 1 (no type or times on the targets) while an upgrade rebuilds them
    if (
      (err as { code?: string }).code !== '42703' ||
      ((await readCheckpoint(db, eventsProjection.name))?.version ?? 0) >= eventsProjection.version
    )
      throw err;
    return latestNamingByScan(db, account_id, types, listing);
  }
}

/** latestNaming over every message naming the listing: what answers while the read model's version 1 is live. */
export async function latestNamingByScan(
  db: Knex,
  account_id: string,
  types: readonly string[],
  listing: Listing,
): Promise<Latest> {
  const { rows } = await db.raw(
    `select distinct on (e.stream_type) e.stream_type, e.payload from ${rm(EVENTS_TABLE)} e
     where e.account_id = ? and e.stream_type = any(?) and not e.synthetic
       and exists (select 1 from ${rm(EVENT_TARGETS_TABLE)} t where t.event_id = e.id
         and (t.sku = ? or (t.sku is null and t.asin = ?)) and (t.marketplace_id is null or t.marketplace_id = ?))
     order by e.stream_type, e.occurred_at desc, e.received_at desc`,
    [account_id, [...types], listing.sku, listing.asin, listing.marketplace_id],
  );
  return latestOf(rows);
}

/** The Marketing Stream rows of these types recorded for a campaign (provider id) since `since`, in the order received. */
export async function campaignStreamRows(
  db: Knex,
  account_id: string,
  types: readonly string[],
  providerCampaignId: string,
  since: Date,
): Promise<Array<{ stream_type: string; payload: Record<string, unknown> }>> {
  const { rows } = await db.raw(
    `select e.stream_type, e.payload from ${rm(EVENTS_TABLE)} e
     where e.account_id = ? and e.stream_type = any(?) and e.occurred_at >= ?
       and exists (select 1 from ${rm(EVENT_TARGETS_TABLE)} t where t.event_id = e.id and t.campaign_id = ?)
     order by e.received_at, e.id`,
    [account_id, [...types], since, providerCampaignId],
  );
  return rows;
}
