import { currentListingsSql } from '../observed/listings.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_listings.json' with { type: 'json' };

export const vListings: ViewDefinition = {
  ...viewCatalogue(catalogue),
  sql: `select l.account_id, l.sku, l.asin, l.marketplace_id, l.title
from (${currentListingsSql}) l
where l.status is distinct from 'DELETED'`,
};
