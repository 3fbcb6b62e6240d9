import type { Field } from '../fields.js';
import { ADVERTISING_PROFILES, CAMPAIGN } from './ads-entities.js';
import { COMMON, receiptsAt } from './common.js';
import { field, listAt, maybe, objectAt } from './field.js';

// The Report scope (spec 2.11): the report receipt's metadata and bounded selections of what it
// covers, each collection at most 50 rows ordered by id, truncation stated in `completeness`.

const REPORT: readonly Field[] = [
  field('id', 'string', 'the report receipt id'),
  field('reportType', 'string', 'report type (or ads report type id)'),
  maybe('operation', 'string', 'qualified operation name; null for adopted requests whose payload was not kept'),
  field('providerStatus', 'string', "the provider's terminal status: DONE, CANCELLED or FATAL"),
  field(
    'ingestionStatus',
    'string',
    'imported, not_scheduled (customer-requested artifacts are never imported) or failed',
  ),
  maybe('byteSize', 'number', 'null until the artifact transfer succeeded', { unit: 'bytes' }),
  maybe('mediaType', 'string', 'null until transfer'),
  maybe('checksum', 'string', 'null until transfer'),
  maybe('expiresAt', 'string', 'artifact expiry (ISO 8601); null until transfer'),
  maybe('previousPage', 'string', 'receipt id of the previous page when following a query continuation'),
  field(
    'hasContinuation',
    'boolean',
    'this page has a continuation (no token exposed); completion is not the whole query',
  ),
  field('digest', 'string', 'server-owned execution digest'),
  maybe('correlation', 'object', '{ root, parent, event, delivery, output } when automation-originated, else null'),
];

const collection = (name: string): Field[] => [
  field(`completeness.${name}`, 'object', `the ${name} selection`),
  field(`completeness.${name}.returned`, 'number', 'rows returned (at most 50)'),
  field(`completeness.${name}.truncated`, 'boolean', 'more rows exist than returned'),
];

export const REPORT_CONTEXT: readonly Field[] = [
  ...objectAt('report', 'the report receipt', REPORT),
  field('completeness', 'object', 'local selection counts (not provider coverage)'),
  ...['listings', 'campaigns', 'inventories', 'advertisingProfiles'].flatMap(collection),
  field('connection', 'object', "the source receipt's connection"),
  field('connection.type', 'string', 'SellingPartner or Advertiser'),
  field('connection.id', 'string', 'local connection id'),
  field('connection.marketplaceIds', 'array', 'admitted marketplaces; companions come from the same account'),
  field('listings', 'array', 'observed listings with native data and receipts (nested ads lists empty); bounded'),
  field('listings[].type', 'string', '"Listing"'),
  field('listings[].id', 'string', 'local listing id'),
  field('listings[].sku', 'string', 'SKU'),
  field('listings[].asin', 'string', 'ASIN'),
  field('listings[].marketplaceId', 'string', 'marketplace id'),
  field('listings[].data', 'object', 'native data, original keys and units'),
  ...receiptsAt('listings[].mutations'),
  ...listAt('campaigns', 'observed campaigns of authorized profiles in the same account and marketplaces', CAMPAIGN),
  field('inventories', 'array', 'authorized inventories in scope; vendor contexts may have none'),
  ...ADVERTISING_PROFILES,
  ...COMMON,
];
