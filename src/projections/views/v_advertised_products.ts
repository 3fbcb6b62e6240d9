import { completeReads } from '../observed/economics-support.js';
import type { ViewDefinition } from './definition.js';
import { accountId, MARKETPLACES_JOIN, PROFILE_MARKETPLACE_ID, column } from './shared.js';
import { SP_ENTITY_DATASETS } from '../../domain/observation/datasets.js';

export const vAdvertisedProducts: ViewDefinition = {
  name: 'v_advertised_products',
  audience: 'advertiser',
  grain: 'one row per Sponsored Products product ad',
  columns: [
    accountId('advertising'),
    column('campaign_id', 'uuid', false, 'local id of the campaign the ad belongs to (v_ad_performance.campaign_id)'),
    column('asin', 'text', true, 'the advertised ASIN'),
    column('sku', 'text', true, 'the advertised SKU (seller profiles); null when the ad names only an ASIN'),
    column(
      'state',
      'text',
      false,
      "the ad's own state: enabled, paused or archived (its campaign's state is in v_ad_performance)",
    ),
    column('advertising_profile_id', 'uuid', false, 'local id of the advertising profile'),
    PROFILE_MARKETPLACE_ID,
  ],
  freshness:
    'From the Sponsored Products product ads list, re-read completely every hour; an ad archived since shows as archived.',
  joins: [
    {
      view: 'v_ad_performance',
      on: 'account_id, campaign_id',
      fanOut: 'the campaign-day row repeats for every product ad of the campaign: spend is not per product',
    },
    { view: 'v_listings', on: 'account_id, marketplace_id, sku', fanOut: null },
    { view: 'v_catalog_items', on: 'marketplace_id, asin', fanOut: null },
    MARKETPLACES_JOIN,
  ],
  warnings: [
    "Spend is campaign-level: joining v_ad_performance through this view shares each campaign's cost across every product it advertises; per-product spend is exact only for single-product campaigns.",
    'The same SKU can be advertised by several campaigns (and ad groups): count distinct SKUs, not rows.',
  ],
  dateColumn: null,
  sql: `select distinct on (a.account_id, a.id) a.account_id, a.campaign_id, a.asin, a.sku, lower(a.state) as state,
  a.profile_id as advertising_profile_id, a.marketplace_id
from rm.ads_product_ads a
${completeReads('a', SP_ENTITY_DATASETS.productAds)}
order by a.account_id, a.id, a.scope, a.page`,
};
