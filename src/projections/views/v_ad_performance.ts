import { completeReads, inCompleteRead } from '../observed/economics-support.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_ad_performance.json' with { type: 'json' };
import { SP_CAMPAIGN_DAILY, SP_ENTITY_DATASETS } from '../../domain/observation/datasets.js';

export const vAdPerformance: ViewDefinition = {
  ...viewCatalogue(catalogue),
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
