import {
  allowedActions,
  chosenFields,
  payloadJsonSchema,
  type Action,
  type JsonSchema,
  type TargetType,
} from '../../domain/mutation/payloads.js';
import type { Field } from './fields.js';
import { RUN_LIMITS } from './limits.js';

// What a handler can change (spec 4.12): the targets a context hands it, where each is found,
// the actions each takes and what each payload accepts, all read off the payload schemas that
// admission validates with (src/domain/mutation/payloads.ts), so a contract can't promise a key
// admission refuses.

/** Spec 4.12's "where found" tables, as context paths. */
const FOUND_AT: Readonly<Partial<Record<TargetType, readonly string[]>>> = {
  Listing: ['listing'],
  AdvertisingProfile: ['advertisingProfiles[]'],
  Campaign: ['listing.campaigns[]', 'campaign', 'campaigns[]'],
  AdGroup: ['listing.adGroups[]', 'campaign.adGroups[]', 'campaigns[].adGroups[]'],
  Ad: ['listing.ads[]', 'campaign.ads[]', 'campaigns[].ads[]'],
  Target: [
    'listing.targets[]',
    'listing.keywords[]',
    'listing.negativeTargets[]',
    'campaign.targets[]',
    'campaign.negativeTargets[]',
    'campaigns[].targets[]',
    'campaigns[].negativeTargets[]',
  ],
};

/** The listing fields a patch changes: the attribute and key of the Listings Items patch. */
const LISTING_ATTRIBUTES = [
  { field: 'price', attribute: 'purchasable_offer', key: 'our_price', fulfilment: 'any' },
  { field: 'floor', attribute: 'purchasable_offer', key: 'minimum_seller_allowed_price', fulfilment: 'any' },
  { field: 'ceiling', attribute: 'purchasable_offer', key: 'maximum_seller_allowed_price', fulfilment: 'any' },
  { field: 'b2bPrice', attribute: 'purchasable_offer', key: 'our_price (audience B2B)', fulfilment: 'any' },
  { field: 'quantity', attribute: 'fulfillment_availability', key: 'quantity', fulfilment: 'Merchant' },
  {
    field: 'handlingTime',
    attribute: 'fulfillment_availability',
    key: 'lead_time_to_ship_max_days',
    fulfilment: 'Merchant',
  },
  { field: 'restockDate', attribute: 'fulfillment_availability', key: 'restock_date', fulfilment: 'Merchant' },
  { field: 'shippingGroup', attribute: 'merchant_shipping_group', key: 'value', fulfilment: 'Merchant' },
] as const;

export interface SetterAction {
  action: Action;
  /** the payload keys the caller chooses; anything else is refused */
  writable: readonly string[];
  /** ids, adProduct and marketplaceScope: derived from the target, must match when given */
  derived: readonly string[];
  payload_schema: JsonSchema;
}

export interface Setter {
  target_type: TargetType;
  found_at: readonly string[];
  actions: readonly SetterAction[];
  /** Listing only: which listing field each patchable attribute sets */
  attributes?: typeof LISTING_ATTRIBUTES;
}

function setterAction(type: TargetType, action: Action): SetterAction {
  const schema = payloadJsonSchema(type, action)!;
  const writable = chosenFields(schema);
  const derived = Object.keys(schema.properties ?? {}).filter((k) => !writable.includes(k));
  return { action, writable, derived, payload_schema: schema };
}

/** The targets a context with `fields` hands its handler. */
export function settersOf(fields: readonly Field[]): Setter[] {
  const paths = new Set(fields.map((f) => f.path));
  const setters: Setter[] = [];
  for (const [type, where] of Object.entries(FOUND_AT) as Array<[TargetType, readonly string[]]>) {
    const found_at = where.filter((p) => paths.has(p.replace(/\[\]$/, '')));
    if (found_at.length === 0) continue;
    setters.push({
      target_type: type,
      found_at: found_at.map((p) => `context.${p}`),
      actions: allowedActions(type).map((a) => setterAction(type, a)),
      ...(type === 'Listing' ? { attributes: LISTING_ATTRIBUTES } : {}),
    });
  }
  return setters;
}

/** How to queue (spec 4.12), with the run's limits (spec 8). */
export const QUEUEING = {
  push: 'context.mutations.push({ target, action, payload })',
  target:
    "the object the context gave (its explicit type and local id name the record); a creation targets the parent; after a confirmed creation, pass the receipt's created object as the next target",
  validated:
    'after handle returns; a dry run answers the validation error, a live run records a failed decision; each push is its own immutable receipt, repeats included',
  limits: {
    requests_per_run: RUN_LIMITS.mutationsPerRun,
    payload_bytes_per_run: RUN_LIMITS.mutationPayloadBytesPerRun,
    output_bytes_per_run: RUN_LIMITS.outputBytesPerRun,
    run_time_ms: RUN_LIMITS.runTimeMs,
    memory_mb: RUN_LIMITS.memoryMb,
  },
  rules: [
    'Listing update: payload { productType, patches }: native patch operations { op, path, value }; offer patches carry marketplace_id, currency and audience selectors; flat fields such as price or quantity are refused',
    'a listing-triggered run can update only its own listing; updates never change the observed listing data',
    'ads update: the native object with the writable keys (money in major units); archive: an empty payload, permanent',
    'a campaign-level target must be an exclusion (negative: true) and takes no bid',
    'an advertised product must be a SKU or ASIN the account already has in the profile marketplace',
    'a created campaign starts with its Automation switch on; creating inside a campaign obeys that switch; on a listing event creating a campaign needs an unblocked listing',
    'an identical pending creation on the same parent is refused',
    'campaign state in context can lag: it updates on the next entity-change event or the daily ads sync',
  ],
} as const;
