import type { Knex } from 'knex';
import { prepared } from '../../infra/db.js';
import type { TargetType } from '../../domain/mutation/payloads.js';
import { UUID_PATTERN } from '../../domain/shared/ids.js';
import { ADS_TABLES } from '../observed/ads.js';
import { completeReads } from '../observed/economics-support.js';
import { CURRENT_LISTINGS_TABLE, LISTING_TARGETS_TABLE, LISTINGS_TABLE } from '../observed/listings.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { RECEIPTS_TABLE } from '../mutations/projection.js';
import { PENDING_STATUSES, type Status } from '../../domain/mutation/events.js';
import { ADMISSION_SWITCH_TABLE, CREATED_TARGETS_TABLE } from './projection.js';
import { SP_ENTITY_DATASETS } from '../../domain/observation/datasets.js';

// Lookups of admission: a target by its local id among the caller's accounts (one indexed read
// each), the switch, and what a creation may reference.

/** A target found on one of the caller's accounts, with the provider ids of it and its parents. */
export interface ResolvedTarget {
  account_id: string;
  /** the names decide.ts checks: profileId, campaignId, adGroupId, adId, targetId, countryCode, sku, marketplaceId */
  provider: Record<string, string>;
  /** what admission rules need beyond the ids: an ad's advertised product, a target's polarity */
  facts: {
    product_type?: string | null;
    negative?: boolean;
    advertised?: { sku: string | null; asin: string | null };
    /** a listing the marketplace reports DELETED: still listed (until removed), but it takes no changes */
    deleted?: { sku: string; marketplace_id: string };
  };
}

const rm = (db: Knex, table: string) => db.withSchema(READ_MODEL_SCHEMA).table(table);

/** The account's current listings (its last complete read, list_listings' listing_current), deleted ones included as list_listings shows them. */
const CURRENT_LISTING_COLUMNS = 'c.account_id, c.marketplace_id, c.sku, l.asin, l.product_type, l.status';
const CURRENT_LISTING_FROM = `from ${READ_MODEL_SCHEMA}.${CURRENT_LISTINGS_TABLE} c
  join ${READ_MODEL_SCHEMA}.${LISTINGS_TABLE} l on l.account_id = c.account_id and l.scope = c.scope and l.page = c.page and l.row = c.row`;
const CURRENT_LISTING_ROWS = `select ${CURRENT_LISTING_COLUMNS} ${CURRENT_LISTING_FROM}`;
/** ... and the listing id they are known by */
const BY_LISTING_ID = `join ${READ_MODEL_SCHEMA}.${LISTING_TARGETS_TABLE} t on (t.account_id, t.marketplace_id, t.sku) = (c.account_id, c.marketplace_id, c.sku)`;
const CURRENT_LISTINGS = `${CURRENT_LISTING_ROWS} where c.account_id = ?`;

const entity = (table: string, dataset: string | null, alias: string) =>
  `from ${READ_MODEL_SCHEMA}.${table} ${alias} ${completeReads(alias, dataset)}
   join ${READ_MODEL_SCHEMA}.advertising_profiles p on p.account_id = ${alias}.account_id and p.provider_profile_id = ${alias}.provider_profile_id`;

/** The SQL of each ads target type: one row by local id (indexed), its profile's country and marketplace. */
const ADS_LOOKUPS: Partial<Record<TargetType, string>> = {
  Campaign: `select c.account_id, c.provider_profile_id as "profileId", p.country_code as "countryCode", p.marketplace_id as "marketplaceId", c.provider_id as "campaignId"
    ${entity(ADS_TABLES.campaigns, SP_ENTITY_DATASETS.campaigns, 'c')} where c.id = ? and c.account_id = any(?)`,
  AdGroup: `select g.account_id, g.provider_profile_id as "profileId", p.country_code as "countryCode", p.marketplace_id as "marketplaceId", g.provider_campaign_id as "campaignId", g.provider_id as "adGroupId"
    ${entity(ADS_TABLES.adGroups, SP_ENTITY_DATASETS.adGroups, 'g')} where g.id = ? and g.account_id = any(?)`,
  Ad: `select a.account_id, a.provider_profile_id as "profileId", p.country_code as "countryCode", p.marketplace_id as "marketplaceId", a.provider_campaign_id as "campaignId", a.provider_ad_group_id as "adGroupId", a.provider_id as "adId", a.sku, a.asin
    ${entity(ADS_TABLES.productAds, SP_ENTITY_DATASETS.productAds, 'a')} where a.id = ? and a.account_id = any(?)`,
  Target: `select t.account_id, t.provider_profile_id as "profileId", p.country_code as "countryCode", p.marketplace_id as "marketplaceId", t.provider_campaign_id as "campaignId", t.provider_ad_group_id as "adGroupId", t.provider_id as "targetId", t.kind as "targetKind", t.negative
    ${entity(ADS_TABLES.targets, null, 't')} where t.id = ? and t.account_id = any(?)`,
};

/** The target of that type and local id on one of these accounts; null when there is none. */
export async function resolveTarget(
  db: Knex,
  accountIds: readonly string[],
  target: { type: TargetType; id: string },
): Promise<ResolvedTarget | null> {
  if (!UUID_PATTERN.test(target.id) || accountIds.length === 0) return null;
  const id = target.id.toLowerCase();
  if (target.type === 'Listing') {
    // the id's listing, while it is current: one statement (a live run admits its patch on it)
    const { rows } = await prepared<{ rows: CurrentListing[] }>(() =>
      db.raw(
        `${CURRENT_LISTING_ROWS} ${BY_LISTING_ID}
         -- an array, not a list: one statement text whatever the number of accounts
         where t.listing_id = ? and t.account_id = any(?::uuid[]) limit 1`,
        [id, [...accountIds]],
      ),
    );
    return rows[0] ? listingTarget(rows[0]) : null;
  }
  if (target.type === 'AdvertisingProfile') {
    const p = await rm(db, 'advertising_profiles').where({ profile_id: id }).whereIn('account_id', accountIds).first();
    if (!p) return null;
    return {
      account_id: p.account_id,
      provider: { profileId: p.provider_profile_id, countryCode: p.country_code, marketplaceId: p.marketplace_id },
      facts: {},
    };
  }
  const sql = ADS_LOOKUPS[target.type];
  if (!sql) return null;
  const { rows } = await db.raw(`${sql} limit 1`, [id, [...accountIds]]);
  const row = rows[0] as Record<string, unknown> | undefined;
  if (!row) return createdByReceipt(db, accountIds, target.type, id);
  const { account_id, negative, sku, asin, ...ids } = row;
  const provider = Object.fromEntries(
    Object.entries(ids)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, String(v)]),
  );
  const facts =
    target.type === 'Ad'
      ? { advertised: { sku: (sku as string | null) ?? null, asin: (asin as string | null) ?? null } }
      : negative === undefined
        ? {}
        : { negative: negative as boolean };
  return { account_id: account_id as string, provider, facts };
}

const listingTarget = (listing: CurrentListing): ResolvedTarget => ({
  account_id: listing.account_id,
  provider: { sku: listing.sku, marketplaceId: listing.marketplace_id },
  facts: {
    product_type: listing.product_type,
    ...(listing.status === 'DELETED' ? { deleted: { sku: listing.sku, marketplace_id: listing.marketplace_id } } : {}),
  },
});

/** resolveTarget of Listing targets, several at once (a live wave's admissions): one statement. */
export async function resolveListings(
  db: Knex,
  accountIds: readonly string[],
  ids: readonly string[],
): Promise<Array<ResolvedTarget | null>> {
  const wanted = ids.map((id) => id.toLowerCase());
  const valid = wanted.filter((id) => UUID_PATTERN.test(id));
  if (valid.length === 0 || accountIds.length === 0) return ids.map(() => null);
  const { rows } = await db.raw(
    `select distinct on (t.listing_id) t.listing_id, ${CURRENT_LISTING_COLUMNS} ${CURRENT_LISTING_FROM} ${BY_LISTING_ID}
     where t.listing_id = any(?::uuid[]) and t.account_id = any(?::uuid[])
     order by t.listing_id`,
    [valid, [...accountIds]],
  );
  const found = new Map((rows as Array<CurrentListing & { listing_id: string }>).map((r) => [r.listing_id, r]));
  return wanted.map((id) => (found.has(id) ? listingTarget(found.get(id)!) : null));
}

/** The provider id key of each created type, and how a created target's kind follows from its request. */
const CREATED_ID_KEY: Partial<Record<TargetType, string>> = {
  Campaign: 'campaignId',
  AdGroup: 'adGroupId',
  Ad: 'adId',
  Target: 'targetId',
};

function createdTargetKind(payload: Record<string, unknown>, parentType: string): string {
  const keyword = payload.targetType === 'KEYWORD';
  if (!payload.negative) return keyword ? 'keyword' : 'target';
  return `${parentType === 'Campaign' ? 'campaign_' : ''}negative_${keyword ? 'keyword' : 'target'}`;
}

/**
 * An entity our own creation made and the marketplace confirmed (`created` on the parent's
 * receipt), before the ads sync has observed it (spec 4.12.5: the confirmed `created` object is
 * the next request's target). Its provider ids are the parent's plus its own.
 */
async function createdByReceipt(
  db: Knex,
  accountIds: readonly string[],
  type: TargetType,
  id: string,
): Promise<ResolvedTarget | null> {
  const row = await rm(db, `${CREATED_TARGETS_TABLE} as c`)
    .join(`${RECEIPTS_TABLE} as r`, 'r.id', 'c.receipt_id')
    .where({ 'c.id': id, 'c.type': type })
    .whereIn('r.account_id', accountIds)
    .first('r.account_id', 'r.provider', 'r.created', 'r.payload', 'r.target_type');
  if (!row) return null;
  const provider: Record<string, string> = { ...row.provider, [CREATED_ID_KEY[type]!]: row.created.providerId };
  if (type === 'Target') provider.targetKind = createdTargetKind(row.payload, row.target_type);
  const facts =
    type === 'Target'
      ? { negative: row.payload.negative === true }
      : type === 'Ad'
        ? { advertised: { sku: row.payload.sku ?? null, asin: row.payload.asin ?? null } }
        : {};
  return { account_id: row.account_id, provider, facts };
}

export interface CurrentListing {
  account_id: string;
  marketplace_id: string;
  sku: string;
  asin: string | null;
  product_type: string | null;
  /** the marketplace's status, as list_listings shows it (DELETED, BUYABLE, DISCOVERABLE, or null) */
  status: string | null;
}

/** A listing of the account's last complete read (a deleted one included, with its status), or null. */
export async function currentListing(
  db: Knex,
  account_id: string,
  marketplace_id: string,
  sku: string,
): Promise<CurrentListing | null> {
  return (await currentListings(db, account_id, [marketplace_id], sku))[0] ?? null;
}

/** The account's current listings with that SKU, one per marketplace (patch_listing's lookup). */
export async function listingsBySku(db: Knex, account_id: string, sku: string): Promise<CurrentListing[]> {
  const seen: { marketplace_id: string }[] = await rm(db, LISTING_TARGETS_TABLE)
    .where({ account_id, sku })
    .select('marketplace_id');
  return seen.length
    ? currentListings(
        db,
        account_id,
        seen.map((s) => s.marketplace_id),
        sku,
      )
    : [];
}

/** The SKU's current rows in these marketplaces; by primary keys. */
async function currentListings(
  db: Knex,
  account_id: string,
  marketplaces: readonly string[],
  sku: string,
): Promise<CurrentListing[]> {
  const { rows } = await prepared<{ rows: CurrentListing[] }>(() =>
    db.raw(`${CURRENT_LISTINGS} and c.marketplace_id = any(?) and c.sku = ? order by c.marketplace_id`, [
      account_id,
      [...marketplaces],
      sku,
    ]),
  );
  return rows;
}

/** Up to `limit` current listings with that ASIN in the marketplace (indexed by account, marketplace, ASIN). */
async function listingsByAsin(
  db: Knex,
  account_id: string,
  marketplace_id: string,
  asin: string,
  limit: number,
): Promise<CurrentListing[]> {
  const { rows } = await db.raw(
    `${CURRENT_LISTINGS} and c.marketplace_id = ? and c.asin = ? and l.status is distinct from 'DELETED' limit ${limit}`,
    [account_id, marketplace_id, asin],
  );
  return rows;
}

/**
 * The one current listing an ad advertises in the marketplace (never a deleted one): by its SKU,
 * else by its ASIN when exactly one of the account's listings there has it. Blocking that listing withholds the ad's
 * requests too (spec 3.5).
 */
export async function advertisedListing(
  db: Knex,
  account_id: string,
  marketplace_id: string,
  product: { sku: string | null; asin: string | null },
): Promise<CurrentListing | null> {
  if (product.sku) {
    const listing = await currentListing(db, account_id, marketplace_id, product.sku);
    return listing?.status === 'DELETED' ? null : listing;
  }
  if (!product.asin) return null;
  const found = await listingsByAsin(db, account_id, marketplace_id, product.asin, 2);
  return found.length === 1 ? found[0]! : null;
}

/** Whether the account has that ASIN in the marketplace: among its advertised products or its listings there. */
export async function hasAsin(db: Knex, account_id: string, marketplace_id: string, asin: string): Promise<boolean> {
  const advertised = await rm(db, ADS_TABLES.productAds).where({ account_id, marketplace_id, asin }).first('asin');
  return advertised !== undefined || (await listingsByAsin(db, account_id, marketplace_id, asin, 1)).length > 0;
}

/** The operator's switch: whether new admissions are paused. */
export async function admissionsPaused(db: Knex): Promise<{ disabled: boolean; reason: string | null }> {
  const row = await prepared<{ disabled: boolean; reason: string | null } | undefined>(() =>
    rm(db, ADMISSION_SWITCH_TABLE).first('disabled', 'reason'),
  );
  return { disabled: row?.disabled ?? false, reason: row?.reason ?? null };
}

/** A pending receipt of the same creation on the same parent (the demo's check; live admission reads the guard stream). */
export async function pendingIdentical(
  db: Knex,
  account_id: string,
  target: { type: string; id: string },
  action: string,
  payload: unknown,
): Promise<{ receipt_id: string; status: Status } | null> {
  const row = await rm(db, RECEIPTS_TABLE)
    .where({ account_id, target_type: target.type, target_id: target.id, action })
    .whereIn('status', [...PENDING_STATUSES])
    .whereRaw('payload = ?::jsonb', [JSON.stringify(payload)])
    .first('id', 'status');
  return row ? { receipt_id: row.id, status: row.status } : null;
}

/** What an automation action shows of a listing (spec 2.10): by local listing id, the account's current ones. */
export interface ListingFacts {
  id: string;
  account_id: string;
  asin: string | null;
  sku: string;
  marketplace_id: string;
  title: string | null;
}

/** The account's listings with these local ids (those it never listed are absent). */
export async function listingFacts(
  db: Knex,
  account_id: string,
  ids: readonly string[],
): Promise<Map<string, ListingFacts>> {
  if (ids.length === 0) return new Map();
  const rows = await prepared<ListingFacts[]>(() =>
    db
      .withSchema(READ_MODEL_SCHEMA)
      .from(`${LISTING_TARGETS_TABLE} as t`)
      .leftJoin(`${CURRENT_LISTINGS_TABLE} as c`, (j) =>
        j.on('c.account_id', 't.account_id').andOn('c.marketplace_id', 't.marketplace_id').andOn('c.sku', 't.sku'),
      )
      .where('t.account_id', account_id)
      .whereRaw('t.listing_id = any(?::uuid[])', [[...new Set(ids)]])
      .select('t.listing_id as id', 't.account_id', 'c.asin', 't.sku', 't.marketplace_id', 'c.title'),
  );
  return new Map(rows.map((r) => [r.id, r]));
}
