import type { Knex } from 'knex';
import { accountEventSchemas, type AccountEvent } from '../../domain/account/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
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
import { pageOf, replacePage } from './economics-support.js';
import { pageTable } from './page-table.js';
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

export const ADS_TABLES = {
  profiles: 'ads_profiles',
  campaigns: 'ads_campaigns',
  adGroups: 'ads_ad_groups',
  productAds: 'ads_product_ads',
  targets: 'ads_targets',
  daily: 'ads_campaign_daily',
  targetingDaily: 'ads_targeting_daily',
} as const;

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

/** The columns every page table starts with: the page's keys, the row's position, the profile
 * (kept on the rows so the views need no join to the accounts tables). */
function pageColumns(t: Knex.CreateTableBuilder, withDataset: boolean) {
  pageTable(t, withDataset);
  t.uuid('profile_id');
  t.text('provider_profile_id').notNullable();
  t.text('marketplace_id');
}

function entityColumns(t: Knex.CreateTableBuilder, withDataset = false) {
  pageColumns(t, withDataset);
  t.uuid('id').notNullable().index();
  t.text('provider_id').notNullable();
}

function parentColumns(t: Knex.CreateTableBuilder, adGroupNullable: boolean) {
  t.uuid('campaign_id').notNullable().index();
  t.text('provider_campaign_id').notNullable();
  for (const column of ['ad_group_id', 'provider_ad_group_id'] as const) {
    const c = column === 'ad_group_id' ? t.uuid(column) : t.text(column);
    if (!adGroupNullable) c.notNullable();
  }
}

/** What both daily report tables hold per row. */
function dailyMetricColumns(t: Knex.CreateTableBuilder) {
  t.date('report_date').notNullable();
  t.integer('impressions').notNullable();
  t.integer('clicks').notNullable();
  t.bigInteger('cost');
  t.bigInteger('attributed_sales_7d');
  t.integer('purchases_7d').notNullable();
  t.text('currency');
  t.jsonb('data').notNullable();
}

export const adsProjection: Projection = {
  name: 'ads',
  version: 3,
  handles: ['AdvertisingProfilesObserved', 'PageObserved'],
  tables: Object.values(ADS_TABLES),
  async createTables(db, schema) {
    const create = (table: string, build: (t: Knex.CreateTableBuilder) => void) =>
      db.schema.withSchema(schema).createTable(table, build);
    await create(ADS_TABLES.profiles, (t) => {
      t.uuid('account_id').notNullable();
      t.text('provider_profile_id').notNullable();
      t.uuid('profile_id').notNullable();
      t.text('marketplace_id').notNullable();
      t.text('currency').notNullable();
      t.primary(['account_id', 'provider_profile_id']);
    });
    await create(ADS_TABLES.campaigns, (t) => {
      entityColumns(t);
      t.text('name').notNullable();
      t.text('state').notNullable();
      t.text('targeting_type');
      t.bigInteger('budget_amount');
      t.text('budget_type');
      t.date('start_date');
      t.date('end_date');
      t.text('currency');
      t.jsonb('data').notNullable();
    });
    await create(ADS_TABLES.adGroups, (t) => {
      entityColumns(t);
      t.uuid('campaign_id').notNullable().index();
      t.text('provider_campaign_id').notNullable();
      t.text('name');
      t.text('state').notNullable();
      t.bigInteger('default_bid');
      t.text('currency');
      t.jsonb('data').notNullable();
    });
    await create(ADS_TABLES.productAds, (t) => {
      entityColumns(t);
      parentColumns(t, false);
      t.text('asin');
      t.text('sku');
      t.text('state').notNullable();
      t.jsonb('data').notNullable();
    });
    await create(ADS_TABLES.targets, (t) => {
      entityColumns(t, true);
      t.text('kind').notNullable();
      parentColumns(t, true);
      t.boolean('negative').notNullable();
      t.text('level').notNullable();
      t.text('category').notNullable();
      t.text('text').notNullable();
      t.text('match_type');
      t.text('state').notNullable();
      t.bigInteger('bid');
      t.text('currency');
      t.jsonb('data').notNullable();
    });
    await create(ADS_TABLES.daily, (t) => {
      pageColumns(t, false);
      t.uuid('campaign_id').notNullable();
      t.text('provider_campaign_id').notNullable();
      t.text('campaign_name');
      t.text('campaign_status');
      t.bigInteger('campaign_budget_amount');
      dailyMetricColumns(t);
      t.index(['account_id', 'campaign_id', 'report_date']);
    });
    await create(ADS_TABLES.targetingDaily, (t) => {
      pageColumns(t, false);
      t.uuid('target_id').notNullable();
      t.text('provider_target_id').notNullable();
      parentColumns(t, false);
      t.text('targeting');
      t.text('keyword_type');
      dailyMetricColumns(t);
      t.index(['account_id', 'target_id', 'report_date']);
      // an ad group's rollup (list_ads_entities, automation contexts) without reading the account's every target row
      t.index(['account_id', 'ad_group_id', 'report_date']);
    });
  },
  async apply(trx, event, schema) {
    if (event.type === 'AdvertisingProfilesObserved') {
      const observed = parseEvent<AccountEvent>(accountEventSchemas, event);
      if (observed.type !== 'AdvertisingProfilesObserved') return;
      const { account_id, profiles } = observed.data;
      if (profiles.length === 0) return;
      await trx
        .withSchema(schema)
        .table(ADS_TABLES.profiles)
        .insert(
          profiles.map((p) => ({
            account_id,
            provider_profile_id: p.provider_profile_id,
            profile_id: p.id,
            marketplace_id: p.marketplace_id,
            currency: p.currency,
          })),
        )
        .onConflict(['account_id', 'provider_profile_id'])
        .merge(['profile_id', 'marketplace_id', 'currency']);
      return;
    }
    const page = pageOf(event, DATASETS);
    if (!page) return;
    const target = PAGE_TABLES.find((t) => t.datasets.includes(page.dataset))!;
    const provider_profile_id = page.scope.split('/')[0]!;
    const known = await trx
      .withSchema(schema)
      .table(ADS_TABLES.profiles)
      .where({ account_id: page.account_id, provider_profile_id })
      .first('profile_id', 'marketplace_id', 'currency');
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
    await replacePage(trx, schema, target.table, page, rows, target.withDataset);
  },
};
