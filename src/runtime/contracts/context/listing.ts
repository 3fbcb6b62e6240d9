import type { Field } from '../fields.js';
import { ADVERTISING_PROFILES, CAMPAIGN_IN_LISTING, CHILDREN, deals } from './ads-entities.js';
import { COMMON, receiptsAt } from './common.js';
import { field, fieldTables, listAt, objectAt, targetType } from './field.js';
import tables from './listing.json' with { type: 'json' };

// The Listing scope (spec 2.6): the listing the event is about, in major units, with the
// advertising entities linked to it and the account's advertising profiles.

const T = fieldTables(tables);

const LISTING: readonly Field[] = [
  targetType('Listing'),
  ...T.listing,
  ...deals("the listing's ASIN"),
  ...listAt('campaigns', 'campaigns linked to the listing (or created by its automation)', CAMPAIGN_IN_LISTING),
  ...CHILDREN,
  field('keywords', 'array', 'the keyword subset of targets (same entries)'),
  ...receiptsAt('mutations', 'recent listing requests: queued, submitting, uncertain, plus the latest settled one'),
];

export const LISTING_CONTEXT: readonly Field[] = [
  ...objectAt('listing', 'the listing the event is about (one run per listing the event reaches)', LISTING),
  ...ADVERTISING_PROFILES,
  ...COMMON,
];
