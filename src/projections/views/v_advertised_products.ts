import { completeReads } from '../observed/economics-support.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_advertised_products.json' with { type: 'json' };
import { SP_ENTITY_DATASETS } from '../../domain/observation/datasets.js';

export const vAdvertisedProducts: ViewDefinition = {
  ...viewCatalogue(catalogue),
  sql: `select distinct on (a.account_id, a.id) a.account_id, a.campaign_id, a.asin, a.sku, lower(a.state) as state,
  a.profile_id as advertising_profile_id, a.marketplace_id
from rm.ads_product_ads a
${completeReads('a', SP_ENTITY_DATASETS.productAds)}
order by a.account_id, a.id, a.scope, a.page`,
};
