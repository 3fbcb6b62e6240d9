import type { Field } from '../fields.js';
import { ADVERTISING_PROFILES, CAMPAIGN } from './ads-entities.js';
import { COMMON, receiptsAt } from './common.js';
import { field, fieldTables, listAt, objectAt } from './field.js';
import tables from './report.json' with { type: 'json' };

// The Report scope (spec 2.11): the report receipt's metadata and bounded selections of what it
// covers, each collection at most 50 rows ordered by id, truncation stated in `completeness`.

const T = fieldTables(tables);

const collection = (name: string): Field[] => [
  field(`completeness.${name}`, 'object', `the ${name} selection`),
  field(`completeness.${name}.returned`, 'number', 'rows returned (at most 50)'),
  field(`completeness.${name}.truncated`, 'boolean', 'more rows exist than returned'),
];

export const REPORT_CONTEXT: readonly Field[] = [
  ...objectAt('report', 'the report receipt', T.report),
  field('completeness', 'object', 'local selection counts (not provider coverage)'),
  ...['listings', 'campaigns', 'inventories', 'advertisingProfiles'].flatMap(collection),
  ...T.connection,
  ...T.listings,
  ...receiptsAt('listings[].mutations'),
  ...listAt('campaigns', 'observed campaigns of authorized profiles in the same account and marketplaces', CAMPAIGN),
  field('inventories', 'array', 'authorized inventories in scope; vendor contexts may have none'),
  ...ADVERTISING_PROFILES,
  ...COMMON,
];
