import { READ_MODEL_SCHEMA } from '../projection.js';
import { RECEIPTS_TABLE } from '../mutations/projection.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_listing_mutations.json' with { type: 'json' };

// Listing patches as receipts (spec 2.9, 2.15): one row per mutation whose target is a
// listing, whatever became of it; the SKU and marketplace are the ones resolved at admission,
// so a row outlives its listing.

export const vListingMutations: ViewDefinition = {
  ...viewCatalogue(catalogue),
  sql: `select r.account_id, r.id as mutation_id, r.provider->>'sku' as sku, r.provider->>'marketplaceId' as marketplace_id,
  r.status, r.outcome, r.payload, r.submission_id,
  case when r.status = 'submitted' then r.recorded_at end as submitted_at, r.created_at
from ${READ_MODEL_SCHEMA}.${RECEIPTS_TABLE} r
where r.target_type = 'Listing'`,
};
