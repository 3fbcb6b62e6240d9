import { currentListingsSql } from '../observed/listings.js';
import type { ViewDefinition } from './definition.js';
import { accountId, MARKETPLACES_JOIN, column } from './shared.js';

export const vListings: ViewDefinition = {
  name: 'v_listings',
  audience: 'seller',
  grain: 'one row per SKU per marketplace',
  columns: [
    accountId('seller'),
    column('sku', 'text', false, "the seller's SKU"),
    column(
      'asin',
      'text',
      true,
      'the ASIN the listing sells; several SKUs can share one; null until the marketplace matches the listing to a catalog item',
    ),
    column(
      'marketplace_id',
      'text',
      false,
      'the marketplace (v_marketplaces); a SKU sold in two marketplaces has two rows',
    ),
    column('title', 'text', true, "the listing's item name as the marketplace shows it"),
  ],
  freshness:
    'From the Listings Items API, every listing of each marketplace re-read about hourly. A listing the marketplace reports DELETED leaves the view at the next read; its order lines stay in v_sales_lines.',
  joins: [
    {
      view: 'v_sales_lines',
      on: 'account_id, marketplace_id, sku',
      fanOut: 'one listing meets each of its order lines',
    },
    { view: 'v_catalog_items', on: 'account_id, marketplace_id, asin', fanOut: null },
    {
      view: 'v_seller_economics',
      on: 'account_id, marketplace_id, sku',
      fanOut: 'one listing meets one economics row per day',
    },
    MARKETPLACES_JOIN,
  ],
  warnings: [
    'Presence does not mean buyable: a listing is here while the marketplace reports it BUYABLE, DISCOVERABLE or no status yet.',
    'Several SKUs can share an ASIN: joining on asin alone multiplies rows.',
  ],
  dateColumn: null,
  sql: `select l.account_id, l.sku, l.asin, l.marketplace_id, l.title
from (${currentListingsSql}) l
where l.status is distinct from 'DELETED'`,
};
