import { completeReads } from '../observed/economics-support.js';
import { CATALOG_TABLE } from '../observed/catalog.js';
import { currentListingsSql } from '../observed/listings.js';
import type { ViewDefinition } from './definition.js';
import { accountId, MARKETPLACE_ID, MARKETPLACES_JOIN, column } from './shared.js';
import { CATALOG_DATASET } from '../../domain/observation/datasets.js';

// Every ASIN the account lists, per marketplace, from the listings as soon as they are read,
// completed by the catalog sync (gtin, identifiers, data); catalog items whose listings are
// gone stay as the catalog last read them.

export const vCatalogItems: ViewDefinition = {
  name: 'v_catalog_items',
  audience: 'seller_and_advertiser',
  grain: 'one row per ASIN per marketplace',
  columns: [
    accountId(),
    column('asin', 'text', false, 'the catalog item'),
    column(
      'gtin',
      'text',
      true,
      'GTIN-14, zero-padded from the EAN, UPC, JAN or ISBN; null until the catalog sync read the item (or when it has none)',
    ),
    column(
      'identifiers',
      'jsonb',
      true,
      "the catalog's identifiers in this marketplace, as sent: [{ identifierType, identifier }]; null until the catalog sync",
    ),
    MARKETPLACE_ID,
    column('title', 'text', true, "the catalog's item name, or the listing's before the catalog sync"),
    column(
      'data',
      'jsonb',
      true,
      'the full raw Catalog Items API item (summaries, identifiers, attributes, product types, sales ranks, images); null until the catalog sync',
    ),
  ],
  freshness:
    "Rows appear with the listings sync (hourly); the catalog sync fills gtin, identifiers and data daily for the account's listed ASINs.",
  joins: [
    { view: 'v_listings', on: 'account_id, marketplace_id, asin', fanOut: 'several SKUs can list one ASIN' },
    {
      view: 'v_sales_lines',
      on: 'account_id, marketplace_id, asin',
      fanOut: 'one item meets each order line of any SKU of the ASIN',
    },
    {
      view: 'v_advertised_products',
      on: 'account_id, marketplace_id, asin',
      fanOut: 'one ASIN can be advertised by several product ads',
    },
    MARKETPLACES_JOIN,
  ],
  warnings: ['Identifiers differ by marketplace: join on marketplace_id as well as asin.'],
  dateColumn: null,
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
