import { completeReads } from '../observed/economics-support.js';
import { CATALOG_TABLE } from '../observed/catalog.js';
import { currentListingsSql } from '../observed/listings.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_catalog_items.json' with { type: 'json' };
import { CATALOG_DATASET } from '../../domain/observation/datasets.js';

// Every ASIN the account lists, per marketplace, from the listings as soon as they are read,
// completed by the catalog sync (gtin, identifiers, data); catalog items whose listings are
// gone stay as the catalog last read them.

export const vCatalogItems: ViewDefinition = {
  ...viewCatalogue(catalogue),
  sql: `select coalesce(c.account_id, k.account_id) as account_id, coalesce(c.asin, k.asin) as asin, c.gtin, c.identifiers,
  coalesce(c.marketplace_id, k.marketplace_id) as marketplace_id, coalesce(c.title, k.title) as title, c.data
from (
  select distinct on (l.account_id, l.marketplace_id, l.asin) l.account_id, l.marketplace_id, l.asin, l.title
  from (${currentListingsSql}) l
  where l.asin is not null
  order by l.account_id, l.marketplace_id, l.asin, l.status is not distinct from 'DELETED', l.sku
) k
full join (
  select distinct on (i.account_id, i.marketplace_id, i.asin) i.account_id, i.marketplace_id, i.asin, i.gtin, i.identifiers, i.title, i.data
  from rm.${CATALOG_TABLE} i
  ${completeReads('i', CATALOG_DATASET)}
  order by i.account_id, i.marketplace_id, i.asin, i.scope, i.page desc
) c on c.account_id = k.account_id and c.marketplace_id = k.marketplace_id and c.asin = k.asin`,
};
