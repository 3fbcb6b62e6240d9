import { accountEventSchemas, type AccountEvent } from '../../domain/account/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import type { Projection } from '../projection.js';
import {
  adGroupRow,
  campaignDailyRow,
  campaignRow,
  productAdRow,
  TARGET_DATASETS,
  targetingDailyRow,
  targetRow,
  type ProfileContext,
  type Row,
} from './ads-rows.js';
import { pageOf, replacePages, type PageRows } from './economics-support.js';
import {
  ADS_ROLLUP_SPECS,
  ADS_ROLLUP_TABLES,
  recordDailyScopes,
  refreshProfileDays,
  type DailyScope,
} from './ads-rollups.js';
import { observationEventSchemas, type ObservationEvent } from '../../domain/observation/events.js';
import { ofDatasets, pageTableSpec } from './page-table.js';
import { createTables, type Columns, type TableSpec } from '../tables.js';
import { SP_CAMPAIGN_DAILY, SP_ENTITY_DATASETS, SP_TARGETING_DAILY } from '../../domain/observation/datasets.js';

// Observed advertising: Sponsored Products entities per profile and daily campaign and targeting
// (keyword / targeting clause) metrics per profile-local day, each table holding the rows of the pages it was given (readers keep only
// pages of the last complete read: completeReads in economics-support.ts). A restated day is a
// re-read of its scope, so its new page replaces the old figures.
//
// Money columns need the profile's currency, which the accounts events carry; this projection
// keeps its own copy (ads_profiles: local id, marketplace, currency) so it rebuilds from the
// log alone. A profile is always observed before anything is synced for it, so it is known
// when its pages arrive.
//
// The daily campaign report is also rolled up per profile-day (ads-rollups.ts), from the pages and
// completions of its scopes.

export const ADS_TABLES = {
  profiles: 'ads_profiles',
  campaigns: 'ads_campaigns',
  adGroups: 'ads_ad_groups',
  productAds: 'ads_product_ads',
  targets: 'ads_targets',
  daily: 'ads_campaign_daily',
  targetingDaily: 'ads_targeting_daily',
} as const;

/** A page row's table row: a new object each call (replacePages writes the page keys into it), or null to skip it. */
type Mapper = (raw: Record<string, unknown>, ctx: ProfileContext, dataset: string) => Row | null;

const PAGE_TABLES: ReadonlyArray<{ datasets: readonly string[]; table: string; map: Mapper; withDataset: boolean }> = [
  { datasets: [SP_ENTITY_DATASETS.campaigns], table: ADS_TABLES.campaigns, map: campaignRow, withDataset: false },
  { datasets: [SP_ENTITY_DATASETS.adGroups], table: ADS_TABLES.adGroups, map: adGroupRow, withDataset: false },
  { datasets: [SP_ENTITY_DATASETS.productAds], table: ADS_TABLES.productAds, map: productAdRow, withDataset: false },
  {
    datasets: TARGET_DATASETS,
    table: ADS_TABLES.targets,
    map: (raw, ctx, dataset) => targetRow(dataset, raw, ctx),
    withDataset: true,
  },
  { datasets: [SP_CAMPAIGN_DAILY], table: ADS_TABLES.daily, map: campaignDailyRow, withDataset: false },
  { datasets: [SP_TARGETING_DAILY], table: ADS_TABLES.targetingDaily, map: targetingDailyRow, withDataset: false },
];
const DATASETS = PAGE_TABLES.flatMap((t) => t.datasets);

/** The columns every ads page table has after the page key: the profile (kept on the rows so
 * the views need no join to the accounts tables). */
const PROFILE_COLUMNS: Columns = { profile_id: 'uuid null', provider_profile_id: 'text', marketplace_id: 'text null' };

/** An entity's local and provider ids. */
const ENTITY_COLUMNS: Columns = { ...PROFILE_COLUMNS, id: 'uuid index', provider_id: 'text' };

/** The campaign and ad group an entity belongs to (a target may belong to a campaign only). */
const parentColumns = (adGroupNullable: boolean): Columns => ({
  campaign_id: 'uuid index',
  provider_campaign_id: 'text',
  ad_group_id: adGroupNullable ? 'uuid null' : 'uuid',
  provider_ad_group_id: adGroupNullable ? 'text null' : 'text',
});

/** What both daily report tables hold per row. */
const DAILY_METRIC_COLUMNS: Columns = {
  report_date: 'date',
  impressions: 'integer',
  clicks: 'integer',
  cost: 'bigint null',
  attributed_sales_7d: 'bigint null',
  purchases_7d: 'integer',
  currency: 'text null',
  data: 'jsonb',
};

const ADS_TABLE_SPECS: Record<string, TableSpec> = {
  [ADS_TABLES.profiles]: {
    columns: {
      account_id: 'uuid',
      provider_profile_id: 'text',
      profile_id: 'uuid',
      marketplace_id: 'text',
      currency: 'text',
    },
    primary: ['account_id', 'provider_profile_id'],
  },
  [ADS_TABLES.campaigns]: pageTableSpec({
    ...ENTITY_COLUMNS,
    name: 'text',
    state: 'text',
    targeting_type: 'text null',
    budget_amount: 'bigint null',
    budget_type: 'text null',
    start_date: 'date null',
    end_date: 'date null',
    currency: 'text null',
    data: 'jsonb',
  }),
  [ADS_TABLES.adGroups]: pageTableSpec({
    ...ENTITY_COLUMNS,
    campaign_id: 'uuid index',
    provider_campaign_id: 'text',
    name: 'text null',
    state: 'text',
    default_bid: 'bigint null',
    currency: 'text null',
    data: 'jsonb',
  }),
  [ADS_TABLES.productAds]: pageTableSpec({
    ...ENTITY_COLUMNS,
    ...parentColumns(false),
    asin: 'text null',
    sku: 'text null',
    state: 'text',
    data: 'jsonb',
  }),
  [ADS_TABLES.targets]: pageTableSpec(
    {
      ...ENTITY_COLUMNS,
      kind: 'text',
      ...parentColumns(true),
      negative: 'boolean',
      level: 'text',
      category: 'text',
      text: 'text',
      match_type: 'text null',
      state: 'text',
      bid: 'bigint null',
      currency: 'text null',
      data: 'jsonb',
    },
    { withDataset: true },
  ),
  [ADS_TABLES.daily]: pageTableSpec(
    {
      ...PROFILE_COLUMNS,
      campaign_id: 'uuid',
      provider_campaign_id: 'text',
      campaign_name: 'text null',
      campaign_status: 'text null',
      campaign_budget_amount: 'bigint null',
      ...DAILY_METRIC_COLUMNS,
    },
    { indexes: [['account_id', 'campaign_id', 'report_date']] },
  ),
  [ADS_TABLES.targetingDaily]: pageTableSpec(
    {
      ...PROFILE_COLUMNS,
      target_id: 'uuid',
      provider_target_id: 'text',
      ...parentColumns(false),
      targeting: 'text null',
      keyword_type: 'text null',
      ...DAILY_METRIC_COLUMNS,
    },
    // an ad group's rollup (list_ads_entities, automation contexts) without reading the account's every target row
    {
      indexes: [
        ['account_id', 'target_id', 'report_date'],
        ['account_id', 'ad_group_id', 'report_date'],
      ],
    },
  ),
};

export const adsProjection: Projection = {
  name: 'ads',
  // 4: the daily campaign report's rollup per profile-day
  version: 4,
  // the profiles event names no dataset: the filter keeps it
  handles: ['AdvertisingProfilesObserved', 'PageObserved', 'SyncCompleted'],
  filter: ofDatasets(DATASETS),
  tables: [...Object.values(ADS_TABLES), ...Object.values(ADS_ROLLUP_TABLES)],
  createTables: (db, schema) => createTables(db, schema, { ...ADS_TABLE_SPECS, ...ADS_ROLLUP_SPECS }),
  apply: (trx, event, schema) => applyAds(trx, [event], schema),
  applyMany: applyAds,
};

/**
 * Applies a batch in log order: a profiles event at once (the pages after it read its currency),
 * each page mapped with its profile as known at that point, then each table's pages replaced
 * together (replacePages), then the daily campaign scopes the batch read or completed rolled up.
 */
async function applyAds(trx: Knex.Transaction, events: readonly RecordedEvent[], schema: string): Promise<void> {
  type Known = Pick<ProfileContext, 'profile_id' | 'marketplace_id' | 'currency'> | undefined;
  const profiles = new Map<string, Known>();
  const profileOf = async (account_id: string, provider_profile_id: string): Promise<Known> => {
    const key = `${account_id}/${provider_profile_id}`;
    if (!profiles.has(key))
      profiles.set(
        key,
        await trx
          .withSchema(schema)
          .table(ADS_TABLES.profiles)
          .where({ account_id, provider_profile_id })
          .first('profile_id', 'marketplace_id', 'currency'),
      );
    return profiles.get(key);
  };
  const pages = new Map<(typeof PAGE_TABLES)[number], PageRows[]>();
  const completed = new Map<string, DailyScope & { pages: number }>();
  const dailyChanged = new Map<string, DailyScope>();
  /** Notes a daily campaign scope the batch read or completed (its rollup is summed again); its key. */
  const markDaily = ({ account_id, scope }: DailyScope) => {
    dailyChanged.set(`${account_id}/${scope}`, { account_id, scope });
    return `${account_id}/${scope}`;
  };
  for (const event of events) {
    if (event.type === 'SyncCompleted') {
      const done = parseEvent<ObservationEvent>(observationEventSchemas, event);
      if (done.type === 'SyncCompleted' && done.data.dataset === SP_CAMPAIGN_DAILY) {
        const { account_id, scope, pages: count } = done.data;
        completed.set(markDaily(done.data), { account_id, scope, pages: count });
      }
      continue;
    }
    if (event.type === 'AdvertisingProfilesObserved') {
      const observed = parseEvent<AccountEvent>(accountEventSchemas, event);
      if (observed.type !== 'AdvertisingProfilesObserved') continue;
      const { account_id, profiles: observedProfiles } = observed.data;
      if (observedProfiles.length === 0) continue;
      const rows = observedProfiles.map((p) => ({
        account_id,
        provider_profile_id: p.provider_profile_id,
        profile_id: p.id,
        marketplace_id: p.marketplace_id,
        currency: p.currency,
      }));
      await trx
        .withSchema(schema)
        .table(ADS_TABLES.profiles)
        .insert(rows)
        .onConflict(['account_id', 'provider_profile_id'])
        .merge(['profile_id', 'marketplace_id', 'currency']);
      for (const { account_id, provider_profile_id, ...known } of rows)
        profiles.set(`${account_id}/${provider_profile_id}`, known);
      continue;
    }
    const page = pageOf(event, DATASETS);
    if (!page) continue;
    const target = PAGE_TABLES.find((t) => t.datasets.includes(page.dataset))!;
    const provider_profile_id = page.scope.split('/')[0]!;
    const known = await profileOf(page.account_id, provider_profile_id);
    const ctx: ProfileContext = {
      account_id: page.account_id,
      provider_profile_id,
      profile_id: known?.profile_id ?? null,
      marketplace_id: known?.marketplace_id ?? null,
      currency: known?.currency ?? null,
    };
    const rows = page.rows.flatMap((raw) => {
      const row =
        typeof raw === 'object' && raw !== null ? target.map(raw as Record<string, unknown>, ctx, page.dataset) : null;
      return row ? [row] : [];
    });
    if (page.dataset === SP_CAMPAIGN_DAILY) markDaily(page);
    const replaced = pages.get(target) ?? [];
    replaced.push({ page, rows });
    pages.set(target, replaced);
  }
  for (const [target, replaced] of pages) await replacePages(trx, schema, target.table, replaced, target.withDataset);
  await recordDailyScopes(trx, schema, completed);
  await refreshProfileDays(trx, schema, ADS_TABLES.daily, dailyChanged);
}
