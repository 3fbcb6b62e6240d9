import type { Knex } from 'knex';
import { prepared } from '../../infra/db.js';
import type { TargetCategory } from './ads-rows.js';
import { completeReads, inCompleteRead } from './economics-support.js';
import { ADS_ROLLUP_TABLES } from './ads-rollups.js';
import { SP_CAMPAIGN_DAILY, SP_ENTITY_DATASETS, SP_TARGETING_DAILY } from '../../domain/observation/datasets.js';

// Reads over the ads read model for the ads tools: entities of each scope's last complete read
// (one row per local id), and daily metrics summed in SQL over each profile's own window of
// profile-local report dates. Money stays in integer minor units of the profile currency.

/** One profile's window: whole profile-local report dates, both included. */
export interface ProfileWindow {
  account_id: string;
  provider_profile_id: string;
  first: string;
  last: string;
}

export interface Totals {
  impressions: number;
  clicks: number;
  cost: number;
  sales: number;
  purchases: number;
}

const TOTALS = `coalesce(sum(m.impressions), 0) as impressions, coalesce(sum(m.clicks), 0) as clicks, coalesce(sum(m.cost), 0) as cost,
  coalesce(sum(m.attributed_sales_7d), 0) as sales, coalesce(sum(m.purchases_7d), 0) as purchases`;

/** The windows as a relation `w` (account_id, provider_profile_id, first, last). */
const windowsRelation = `jsonb_to_recordset(?::jsonb) as w(account_id uuid, provider_profile_id text, first date, last date)`;

/** Daily rows of `table` inside their profile's window, of complete reads only. A day's scope is
 * `<profile>/<YYYY-MM-DD>`, so a window is a range of the primary key (account_id, scope, …). */
const windowedDaily = (table: string, dataset: string) => `rm.${table} m
  join ${windowsRelation} on ${inWindow('m')} and ${inCompleteRead('m', dataset)}`;

/** Row `alias` of a daily table (or of the rollup) is in its profile's window `w`: its scope, of the
 * window's profile and days, a range of the primary key. */
const inWindow = (alias: string) =>
  `${alias}.account_id = w.account_id
    and ${alias}.scope between w.provider_profile_id || '/' || to_char(w.first, 'YYYY-MM-DD') and w.provider_profile_id || '/' || to_char(w.last, 'YYYY-MM-DD')
    and w.provider_profile_id = ${alias}.provider_profile_id and ${alias}.report_date between w.first and w.last`;

export const toTotals = (r: Record<string, unknown>): Totals => ({
  impressions: Number(r.impressions ?? 0),
  clicks: Number(r.clicks ?? 0),
  cost: Number(r.cost ?? 0),
  sales: Number(r.sales ?? 0),
  purchases: Number(r.purchases ?? 0),
});

/** Campaign metrics per profile over each profile's window. */
export async function profileTotals(db: Knex, windows: readonly ProfileWindow[]): Promise<Map<string, Totals>> {
  const rows = await profileSums(db, windows, false);
  return new Map(rows.map((r) => [`${r.account_id}/${r.provider_profile_id}`, toTotals(r)]));
}

/** The same metrics per profile and report date (the console's charts), oldest first. */
export async function profileDays(
  db: Knex,
  windows: readonly ProfileWindow[],
): Promise<Array<Totals & { account_id: string; provider_profile_id: string; day: string }>> {
  const rows = await profileSums(db, windows, true);
  return rows.map((r) => ({
    account_id: r.account_id as string,
    provider_profile_id: r.provider_profile_id as string,
    day: r.day as string,
    ...toTotals(r),
  }));
}

/** Campaign metrics per profile, and per report date (`day`) when `perDay`, from the rollup per
 * profile-day (ads-rollups.ts): each window's rows by key range, in a lateral fenced with `offset 0`
 * (flattened, the planner, which cannot know how many windows there are, scanned every account's). */
async function profileSums(db: Knex, windows: readonly ProfileWindow[], perDay: boolean) {
  if (windows.length === 0) return [];
  const day = perDay ? `, to_char(m.report_date, 'YYYY-MM-DD') as day` : '';
  const { rows } = await db.raw(
    `select m.account_id, m.provider_profile_id${day}, ${TOTALS} from ${windowsRelation}
       cross join lateral (select * from rm.${ADS_ROLLUP_TABLES.days} d where ${inWindow('d')} offset 0) m
     group by 1, 2${perDay ? ', 3 order by 3' : ''}`,
    [JSON.stringify(windows)],
  );
  return rows as Record<string, unknown>[];
}

export interface ProfileFreshness {
  /** the latest profile-local report date read completely, null when none was */
  latest_report_date: string | null;
  /** when that report data was last read */
  metrics_synced_at: string | null;
  /** when the entities (campaigns) were last read completely */
  entities_synced_at: string | null;
}

/** What was last synced per profile (`<account>/<provider profile>`): report days of `metrics` and the campaigns list. */
export async function profileFreshness(
  db: Knex,
  accountIds: readonly string[],
  metrics: 'campaigns' | 'targeting',
): Promise<Map<string, ProfileFreshness>> {
  if (accountIds.length === 0) return new Map();
  const dataset = metrics === 'campaigns' ? SP_CAMPAIGN_DAILY : SP_TARGETING_DAILY;
  const { rows } = await db.raw(
    `select account_id, split_part(scope, '/', 1) as provider_profile_id,
       max(split_part(scope, '/', 2)) filter (where dataset = ?) as latest_report_date,
       max(observed_at) filter (where dataset = ?) as metrics_synced_at,
       max(observed_at) filter (where dataset = ?) as entities_synced_at
     from rm.observed_scopes where account_id = any(?::uuid[]) and dataset in (?, ?) group by 1, 2`,
    [dataset, dataset, SP_ENTITY_DATASETS.campaigns, [...accountIds], dataset, SP_ENTITY_DATASETS.campaigns],
  );
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);
  return new Map(
    rows.map((r: Record<string, unknown>) => [
      `${r.account_id}/${r.provider_profile_id}`,
      {
        latest_report_date: (r.latest_report_date as string | null) ?? null,
        metrics_synced_at: iso(r.metrics_synced_at),
        entities_synced_at: iso(r.entities_synced_at),
      },
    ]),
  );
}

/** `%text%` for ILIKE, the caller's own wildcards taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Rows of an entity table from each scope's last complete read, one per local id. */
const observed = (
  table: string,
  dataset: string | null,
  where: string,
) => `select distinct on (e.account_id, e.id) e.* from rm.${table} e
  ${completeReads('e', dataset)}
  where ${where}
  order by e.account_id, e.id, e.scope, e.page`;

/**
 * `column` is one of `ids` (uuids), and its binding: one id as a scalar. A named statement of one
 * account's one campaign (a context's, through readTogether) then settles on a generic plan,
 * where an array of unknown length keeps PostgreSQL planning it on every call.
 */
const oneOf = (column: string, ids: readonly string[]): [string, Knex.RawBinding] =>
  ids.length === 1 ? [`${column} = ?::uuid`, ids[0]!] : [`${column} = any(?::uuid[])`, [...ids]];

/** The conditions on entity rows `e`: the accounts and the windows' profiles, and what the caller adds. */
function conditions(f: { accountIds: readonly string[]; windows: readonly ProfileWindow[] }) {
  const [accounts, accountIds] = oneOf('e.account_id', f.accountIds);
  const where = [
    accounts,
    `(e.account_id, e.provider_profile_id) in (select w.account_id, w.provider_profile_id from ${windowsRelation})`,
  ];
  const bindings: Knex.RawBinding[] = [accountIds, JSON.stringify(f.windows)];
  const add = (clause: string, ...values: Knex.RawBinding[]) => {
    where.push(clause);
    bindings.push(...values);
  };
  return { where, bindings, add };
}

/** Distinct advertised ASINs per entity of relation `of`, by the product-ads column `key`, and the binding of its account ids. */
function advertisedAsins(key: string, of: string, accountIds: readonly string[]): [string, Knex.RawBinding] {
  const [accounts, binding] = oneOf('e.account_id', accountIds);
  return [
    `select p.account_id, p.${key} as id, count(distinct p.asin) as advertised_asins
   from (${observed('ads_product_ads', SP_ENTITY_DATASETS.productAds, accounts)}) p where p.${key} in (select id from ${of}) group by 1, 2`,
    binding,
  ];
}

export type MoneyOrder = 'cost' | 'sales';

/**
 * The order of ranked rows: descending by `orderBy`, ties by id. Money never compares across
 * currencies: each row is ranked within its currency and the ranks interleave (the top row of
 * each currency first), so a limit shares out fairly.
 */
const ranking = (orderBy: MoneyOrder | 'clicks', idColumn: string) =>
  orderBy === 'clicks'
    ? `order by clicks desc, ${idColumn}`
    : `order by row_number() over (partition by currency order by ${orderBy} desc, ${idColumn}), currency, ${idColumn}`;

export interface CampaignFilter {
  accountIds: readonly string[];
  windows: readonly ProfileWindow[];
  state?: string;
  name?: string;
  asin?: string;
  orderBy: MoneyOrder;
  limit: number;
}

export interface CampaignRollup extends Totals {
  account_id: string;
  id: string;
  provider_id: string;
  profile_id: string;
  provider_profile_id: string;
  marketplace_id: string;
  currency: string;
  name: string;
  state: string;
  targeting_type: string | null;
  budget_amount: number | null;
  budget_type: string | null;
  advertised_asins: number;
}

/** Campaigns of the windows' profiles with their metrics over the window (zeros without any), ranked. */
export async function campaignRollups(db: Knex, f: CampaignFilter): Promise<CampaignRollup[]> {
  if (f.windows.length === 0) return [];
  const { where, bindings, add } = conditions(f);
  if (f.state) add('lower(e.state) = ?', f.state);
  if (f.name) add('e.name ilike ?', containing(f.name));
  // the asin filter picks campaigns; their figures stay the whole campaign's
  if (f.asin)
    add(
      `exists (select 1 from rm.ads_product_ads a ${completeReads('a', SP_ENTITY_DATASETS.productAds)} where a.account_id = e.account_id and a.campaign_id = e.id and a.asin = ?)`,
      f.asin,
    );
  const [asins, asinAccounts] = advertisedAsins('campaign_id', 'c', f.accountIds);
  const { rows } = await db.raw(
    `with c as (${observed('ads_campaigns', SP_ENTITY_DATASETS.campaigns, where.join(' and '))}),
     m as (select m.account_id, m.campaign_id, ${TOTALS} from ${windowedDaily('ads_campaign_daily', SP_CAMPAIGN_DAILY)}
           where m.campaign_id in (select id from c) group by 1, 2),
     a as (${asins}),
     r as (select c.account_id, c.id, c.provider_id, c.profile_id, c.provider_profile_id, c.marketplace_id, c.currency, c.name, lower(c.state) as state,
             c.targeting_type, c.budget_amount, c.budget_type, coalesce(a.advertised_asins, 0) as advertised_asins,
             coalesce(m.impressions, 0) as impressions, coalesce(m.clicks, 0) as clicks, coalesce(m.cost, 0) as cost, coalesce(m.sales, 0) as sales, coalesce(m.purchases, 0) as purchases
           from c left join m on m.account_id = c.account_id and m.campaign_id = c.id
           left join a on a.account_id = c.account_id and a.id = c.id)
     select * from r ${ranking(f.orderBy, 'id')} limit ?`,
    [...bindings, JSON.stringify(f.windows), asinAccounts, f.limit],
  );
  return rows.map((r: Record<string, unknown>) => ({
    ...r,
    ...toTotals(r),
    budget_amount: r.budget_amount === null ? null : Number(r.budget_amount),
    advertised_asins: Number(r.advertised_asins),
  })) as CampaignRollup[];
}

export interface TargetFilter {
  accountIds: readonly string[];
  windows: readonly ProfileWindow[];
  campaignId?: string;
  state?: string;
  /** target categories to keep: keyword, auto, product, product_category */
  categories?: readonly string[];
  matchType?: string;
  orderBy: MoneyOrder | 'clicks';
  limit: number;
}

export interface TargetRollup extends Totals {
  account_id: string;
  id: string;
  provider_id: string;
  kind: string;
  profile_id: string;
  provider_profile_id: string;
  marketplace_id: string;
  currency: string;
  campaign_id: string;
  campaign_name: string | null;
  ad_group_id: string;
  ad_group_name: string | null;
  category: TargetCategory;
  text: string;
  match_type: string | null;
  state: string;
  bid: number | null;
  /** the ad group's default bid, which a target without a bid of its own bids */
  default_bid: number | null;
}

/** Positive keywords and targeting clauses with their metrics over the window (zeros without any), ranked. */
export async function targetRollups(db: Knex, f: TargetFilter): Promise<TargetRollup[]> {
  if (f.windows.length === 0) return [];
  const { where, bindings, add } = conditions(f);
  add('not e.negative');
  if (f.campaignId) add('e.campaign_id = ?::uuid', f.campaignId);
  if (f.state) add('lower(e.state) = ?', f.state);
  if (f.categories) add('e.category = any(?::text[])', [...f.categories]);
  if (f.matchType) add('e.match_type = ?', f.matchType);
  const { rows } = await db.raw(
    `with t as (${observed('ads_targets', null, where.join(' and '))}),
     m as (select m.account_id, m.target_id, ${TOTALS} from ${windowedDaily('ads_targeting_daily', SP_TARGETING_DAILY)}
           where m.target_id in (select id from t) group by 1, 2),
     c as (${observed('ads_campaigns', SP_ENTITY_DATASETS.campaigns, 'e.account_id = any(?::uuid[]) and e.id in (select campaign_id from t)')}),
     g as (${observed('ads_ad_groups', SP_ENTITY_DATASETS.adGroups, 'e.account_id = any(?::uuid[]) and e.id in (select ad_group_id from t)')}),
     r as (select t.account_id, t.id, t.provider_id, t.kind, t.profile_id, t.provider_profile_id, t.marketplace_id, t.currency,
             t.campaign_id, c.name as campaign_name, t.ad_group_id, g.name as ad_group_name, t.category, t.text, t.match_type,
             lower(t.state) as state, t.bid, g.default_bid,
             coalesce(m.impressions, 0) as impressions, coalesce(m.clicks, 0) as clicks, coalesce(m.cost, 0) as cost, coalesce(m.sales, 0) as sales, coalesce(m.purchases, 0) as purchases
           from t left join m on m.account_id = t.account_id and m.target_id = t.id
           left join c on c.account_id = t.account_id and c.id = t.campaign_id
           left join g on g.account_id = t.account_id and g.id = t.ad_group_id)
     select * from r ${ranking(f.orderBy, 'id')} limit ?`,
    [...bindings, JSON.stringify(f.windows), [...f.accountIds], [...f.accountIds], f.limit],
  );
  return rows.map((r: Record<string, unknown>) => ({
    ...r,
    ...toTotals(r),
    bid: r.bid === null ? null : Number(r.bid),
    default_bid: r.default_bid === null ? null : Number(r.default_bid),
  })) as TargetRollup[];
}

/** The explicit mutation target types of observed entities (spec 2.7, 2.8). */
export type EntityType = 'Campaign' | 'AdGroup' | 'Ad' | 'Target';

interface EntitySource {
  table: string;
  /** null: the table holds several datasets (its rows carry theirs) */
  dataset: string | null;
  /** the column naming the entity's campaign */
  campaignColumn: string;
  /** where its daily metrics come from, keyed by which column; null when no report has them */
  metrics: { table: string; dataset: string; key: string } | null;
  /** the product-ads column counting the entity's distinct advertised ASINs */
  asins: string | null;
}

const CAMPAIGN_METRICS = { table: 'ads_campaign_daily', dataset: SP_CAMPAIGN_DAILY };
const TARGETING_METRICS = { table: 'ads_targeting_daily', dataset: SP_TARGETING_DAILY };

const ENTITY_SOURCES: Readonly<Record<EntityType, EntitySource>> = {
  Campaign: {
    table: 'ads_campaigns',
    dataset: SP_ENTITY_DATASETS.campaigns,
    campaignColumn: 'id',
    metrics: { ...CAMPAIGN_METRICS, key: 'campaign_id' },
    asins: 'campaign_id',
  },
  AdGroup: {
    table: 'ads_ad_groups',
    dataset: SP_ENTITY_DATASETS.adGroups,
    campaignColumn: 'campaign_id',
    metrics: { ...TARGETING_METRICS, key: 'ad_group_id' },
    asins: 'ad_group_id',
  },
  Ad: {
    table: 'ads_product_ads',
    dataset: SP_ENTITY_DATASETS.productAds,
    campaignColumn: 'campaign_id',
    metrics: null,
    asins: null,
  },
  Target: {
    table: 'ads_targets',
    dataset: null,
    campaignColumn: 'campaign_id',
    metrics: { ...TARGETING_METRICS, key: 'target_id' },
    asins: null,
  },
};

export interface EntityFilter {
  accountIds: readonly string[];
  /** the trailing 30 days of each profile (the metrics30 block) */
  windows: readonly ProfileWindow[];
  campaignId?: string;
  /** any of these campaigns (local ids) */
  campaignIds?: readonly string[];
  limit: number;
}

export interface EntityRow {
  row: Record<string, unknown>;
  /** null when no report has metrics at this level */
  metrics: Totals | null;
  advertised_asins: number | null;
}

/**
 * Observed entities of one type with their trailing-window metrics, ordered by account,
 * profile, campaign and id; `limit + 1` rows are read so the caller can tell it was cut.
 */
export async function observedEntities(db: Knex, type: EntityType, f: EntityFilter): Promise<EntityRow[]> {
  const { rows } = await observedEntitiesQuery(db, type, f);
  return entityRowsOf(type, rows);
}

/** The entity rows of one type a filter selects, as observedEntitiesQuery answers them, and their bindings. */
function selected(type: EntityType, f: EntityFilter) {
  const source = ENTITY_SOURCES[type];
  const { where, bindings, add } = conditions(f);
  if (f.campaignId) add(`e.${source.campaignColumn} = ?::uuid`, f.campaignId);
  if (f.campaignIds) add(...oneOf(`e.${source.campaignColumn}`, f.campaignIds));
  bindings.push(f.limit + 1);
  return {
    sql: `select * from (${observed(source.table, source.dataset, where.join(' and '))}) o order by account_id, provider_profile_id, ${source.campaignColumn}, id limit ?`,
    bindings,
  };
}

/** The ids (text) of the entities observedEntitiesQuery answers: what their receipts are read by, in the same statement. */
export const observedEntityIdsQuery = (db: Knex, type: EntityType, f: EntityFilter): Knex.Raw => {
  const { sql, bindings } = selected(type, f);
  return db.raw(`select s.id::text from (${sql}) s`, bindings);
};

/** observedEntities' statement: its rows go to entityRowsOf (readTogether takes it beside others). */
export function observedEntitiesQuery(db: Knex, type: EntityType, f: EntityFilter): Knex.Raw {
  const source = ENTITY_SOURCES[type];
  const { sql, bindings } = selected(type, f);
  const parts = [`x as (${sql})`];
  const columns = ['to_jsonb(x) as entity'];
  const joins: string[] = [];
  if (source.metrics) {
    const { table, dataset, key } = source.metrics;
    parts.push(
      // by (account, id): the daily tables' indexes lead with the account
      `m as (select m.account_id, m.${key} as id, ${TOTALS} from ${windowedDaily(table, dataset)} where (m.account_id, m.${key}) in (select account_id, id from x) group by 1, 2)`,
    );
    columns.push('m.impressions, m.clicks, m.cost, m.sales, m.purchases');
    joins.push('left join m on m.account_id = x.account_id and m.id = x.id');
    bindings.push(JSON.stringify(f.windows));
  }
  if (source.asins) {
    const [asins, accountIds] = advertisedAsins(source.asins, 'x', f.accountIds);
    parts.push(`a as (${asins})`);
    columns.push('a.advertised_asins');
    joins.push('left join a on a.account_id = x.account_id and a.id = x.id');
    bindings.push(accountIds);
  }
  return db.raw(
    `with ${parts.join(',\n')}
     select ${columns.join(', ')} from x ${joins.join(' ')}
     order by x.account_id, x.provider_profile_id, x.${source.campaignColumn}, x.id`,
    bindings,
  );
}

/** observedEntitiesQuery's rows (its sums as text from the pool, as numbers through readTogether). */
export function entityRowsOf(type: EntityType, rows: readonly unknown[]): EntityRow[] {
  const source = ENTITY_SOURCES[type];
  return (rows as Array<Record<string, unknown>>).map((r) => ({
    row: r.entity as Record<string, unknown>,
    metrics: source.metrics ? toTotals(r) : null,
    advertised_asins: source.asins ? Number(r.advertised_asins ?? 0) : null,
  }));
}

/** The product ads of the account that advertise a listing: its SKU, or its ASIN on an ad naming no SKU (spec 2.6). */
export async function adsOfListing(db: Knex, listing: AdsListing): Promise<ListingAdRow[]> {
  const { rows } = await prepared<{ rows: ListingAdRow[] }>(() => adsOfListingQuery(db, listing));
  return rows;
}

type AdsListing = { account_id: string; marketplace_id: string; sku: string; asin: string | null };
type ListingAdRow = { id: string; campaign_id: string; ad_group_id: string };

/** adsOfListing's statement: rows of `{ id, campaign_id, ad_group_id }`. */
export const adsOfListingQuery = (db: Knex, listing: AdsListing): Knex.Raw =>
  db.raw(
    `select a.id, a.campaign_id, a.ad_group_id from (${observed(
      'ads_product_ads',
      SP_ENTITY_DATASETS.productAds,
      'e.account_id = ? and e.marketplace_id = ? and (e.sku = ? or (e.sku is null and e.asin = ?))',
    )}) a`,
    [listing.account_id, listing.marketplace_id, listing.sku, listing.asin],
  );
