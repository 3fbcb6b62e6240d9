import { completeReads } from '../observed/economics-support.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_seller_economics.json' with { type: 'json' };
import { ECONOMICS_DATASET } from '../../domain/observation/datasets.js';

export const vSellerEconomics: ViewDefinition = {
  ...viewCatalogue(catalogue),
  sql: `select e.account_id, e.sku, e.asin, e.date, e.marketplace_id, e.currency,
  e.ordered_product_sales, e.net_product_sales, e.referral_fee, e.fulfillment_fee, e.storage_fee, e.other_fees,
  e.total_fees, e.net_proceeds, e.net_proceeds_per_unit, e.net_units_sold, e.units_ordered, e.units_refunded
from rm.seller_economics e
${completeReads('e', ECONOMICS_DATASET)}`,
};
