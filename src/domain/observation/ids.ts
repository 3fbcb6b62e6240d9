import { stableId } from '../shared/ids.js';

// Local ids of observed marketplace entities: derived from provider identities, so a re-sync, a
// rebuild, a mutation receipt and an automation all name the same entity the same way without a
// lookup table.

/** The local id of a listing (target id of type `Listing`): stable for (account, marketplace, SKU). */
export const listingId = (account_id: string, marketplace_id: string, sku: string): string =>
  stableId('listing', `${account_id}/${marketplace_id}/${sku}`);

/** What a local ads id names: the kind of entity, since keyword and target ids are separate spaces. */
export type AdsEntityKind = 'campaign' | 'ad_group' | 'product_ad' | SpTargetKind;
export type SpTargetKind =
  | 'keyword'
  | 'target'
  | 'negative_keyword'
  | 'negative_target'
  | 'campaign_negative_keyword'
  | 'campaign_negative_target';

/** The local id of an observed ads entity: stable for (account, provider profile, kind, provider id). */
export const adsEntityId = (
  kind: AdsEntityKind,
  account_id: string,
  providerProfileId: string,
  providerId: string,
): string => stableId(`ads-${kind}:${account_id}`, `${providerProfileId}/${providerId}`);
