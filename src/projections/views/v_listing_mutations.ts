import { READ_MODEL_SCHEMA } from '../projection.js';
import { RECEIPTS_TABLE } from '../mutations/projection.js';
import type { ViewDefinition } from './definition.js';
import { accountId, MARKETPLACES_JOIN, column } from './shared.js';

// Listing patches as receipts (spec 2.9, 2.15): one row per mutation whose target is a
// listing, whatever became of it; the SKU and marketplace are the ones resolved at admission,
// so a row outlives its listing.

export const vListingMutations: ViewDefinition = {
  name: 'v_listing_mutations',
  audience: 'seller',
  grain: 'one row per listing mutation (one patch_listing request or automation listing update)',
  columns: [
    accountId('seller'),
    column('mutation_id', 'uuid', false, 'the receipt id (get_mutation)'),
    column('sku', 'text', false, "the listing's SKU"),
    column('marketplace_id', 'text', false, 'the marketplace the patch targets (v_marketplaces)'),
    column(
      'status',
      'text',
      false,
      'the receipt status: queued, submitting, submitted, blocked or uncertain (spec 3.4); outcome tells accepted from rejected',
    ),
    column(
      'outcome',
      'text',
      true,
      'accepted, rejected, retryable, blocked or uncertain; null while nothing was tried',
    ),
    column(
      'payload',
      'jsonb',
      false,
      'the immutable request: productType and the patches in order, values in major units as the provider takes them',
    ),
    column('submission_id', 'text', true, "the Listings Items API's submissionId; null until submitted"),
    column('submitted_at', 'timestamptz', true, "when the marketplace's answer was recorded; null until submitted"),
    column('created_at', 'timestamptz', false, 'when the request was admitted (queued)'),
  ],
  freshness:
    'Written by the service itself: a receipt appears as soon as it is admitted and changes with every dispatch step.',
  joins: [
    { view: 'v_listings', on: 'account_id, marketplace_id, sku', fanOut: 'one listing meets each of its mutations' },
    MARKETPLACES_JOIN,
  ],
  warnings: [
    'Queued is durable admission, not acceptance: read outcome (accepted / rejected) on submitted rows.',
    'Payload prices are major units as the marketplace takes them, unlike the minor units of every money column.',
  ],
  dateColumn: 'created_at',
  sql: `select r.account_id, r.id as mutation_id, r.provider->>'sku' as sku, r.provider->>'marketplaceId' as marketplace_id,
  r.status, r.outcome, r.payload, r.submission_id,
  case when r.status = 'submitted' then r.recorded_at end as submitted_at, r.created_at
from ${READ_MODEL_SCHEMA}.${RECEIPTS_TABLE} r
where r.target_type = 'Listing'`,
};
