import { completeReads, inCompleteRead } from '../observed/economics-support.js';
import type { ViewDefinition } from './definition.js';
import { accountId, count, MARKETPLACES_JOIN, money, MONEY_WARNING, PROFILE_MARKETPLACE_ID, column } from './shared.js';
import { SP_CAMPAIGN_DAILY, SP_ENTITY_DATASETS } from '../../domain/observation/datasets.js';

export const vAdPerformance: ViewDefinition = {
  name: 'v_ad_performance',
  audience: 'advertiser',
  grain: 'one row per Sponsored Products campaign per profile-local day with activity',
  columns: [
    accountId('advertising'),
    column(
      'campaign_id',
      'uuid',
      false,
      'local campaign id (list_campaigns, list_ads_entities; campaign_id of v_advertised_products)',
    ),
    column('campaign_name', 'text', false, "the campaign's current name"),
    column('campaign_state', 'text', false, "the campaign's current state: enabled, paused or archived"),
    column(
      'advertising_profile_id',
      'uuid',
      false,
      'local id of the advertising profile (connection_status ads.profiles[].id)',
    ),
    PROFILE_MARKETPLACE_ID,
    column(
      'currency',
      'text',
      false,
      "ISO 4217 code of the profile's currency, the unit of cost and attributed_sales_7d",
    ),
    column('report_date', 'date', false, "the day in the profile's time zone"),
    count('impressions', false, 'impressions that day', 'integer'),
    count('clicks', false, 'clicks that day', 'integer'),
    money('cost', false, 'what the clicks cost that day', 'integer'),
    money(
      'attributed_sales_7d',
      false,
      'sales attributed to ad clicks within 7 days; not comparable to organic revenue',
      'integer',
    ),
  ],
  freshness:
    'From the daily Sponsored Products campaign report, re-read every few hours. Days are profile-local and complete through yesterday. The most recent ~14 days are restated on every sync: they read artificially low (sales still maturing) until then.',
  joins: [
    {
      view: 'v_advertised_products',
      on: 'account_id, campaign_id',
      fanOut:
        'every product ad of the campaign repeats the campaign-day row: spend is campaign-level, never per product',
    },
    MARKETPLACES_JOIN,
  ],
  warnings: [
    'The most recent ~14 days read artificially low while attribution matures and are restated; exclude them from trends.',
    'attributed_sales_7d is 7-day ad-attributed sales, not comparable to organic revenue (v_sales_lines, v_seller_economics).',
    'Joining v_advertised_products repeats each campaign-day for every advertised product: cost is campaign-level.',
    MONEY_WARNING,
    'A day without a row means no activity or not synced yet, never confirmed zero spend.',
  ],
  dateColumn: 'report_date',
  // The campaign's current name and state come from the entities read (one indexed lookup per
  // row, whatever the planner knows about the tables); the report's are the fallback. The
  // complete-read rule is a per-row lookup too: as a join, a planner without statistics drove
  // the scan from every day scope and took seconds.
  sql: `select m.account_id, m.campaign_id,
  coalesce(c.name, m.campaign_name) as campaign_name,
  lower(coalesce(c.state, m.campaign_status)) as campaign_state,
  m.profile_id as advertising_profile_id, m.marketplace_id, m.currency, m.report_date,
  m.impressions, m.clicks, m.cost::integer as cost, m.attributed_sales_7d::integer as attributed_sales_7d
from rm.ads_campaign_daily m
left join lateral (
  select c.name, c.state from rm.ads_campaigns c
  ${completeReads('c', SP_ENTITY_DATASETS.campaigns)}
  where c.account_id = m.account_id and c.id = m.campaign_id
  order by c.scope, c.page
  limit 1
) c on true
where ${inCompleteRead('m', SP_CAMPAIGN_DAILY)}`,
};
