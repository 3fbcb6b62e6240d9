import type { SpResource } from '../../clients/ads-sp-types.js';
import type { LiveListing } from '../selling/listings-state.js';
import { raiseEntityChange, raiseOfferChange } from './raise.js';
import { brandedItemContentChange, listingStatusChange, mfnQuantityChange } from './selling-listings.js';
import type { EventSources } from './sources.js';

// The notifications that follow from what callers do through the APIs: a listing patch or
// deletion applied, a Sponsored Products entity created or changed, a report or query finished.

export function listingChanged(s: EventSources, before: LiveListing, after: LiveListing): void {
  const sellerId = s.seller.merchantId;
  if (before.status !== after.status)
    s.hub.selling('LISTINGS_ITEM_STATUS_CHANGE', sellerId, listingStatusChange(sellerId, after));
  if (after.fulfillmentChannel === 'MFN' && before.quantity !== after.quantity)
    s.hub.selling('LISTINGS_ITEM_MFN_QUANTITY_CHANGE', sellerId, mfnQuantityChange(sellerId, after));
  if (before.price !== after.price || before.b2bPrice !== after.b2bPrice) {
    // our own reprice: the Buy Box may change hands because of it
    const held = (l: LiveListing) => s.competition.book(l)[0]!.buyBoxWinner;
    raiseOfferChange(s, after, 'Internal', { before: held(before), after: held(after) });
  }
  if (before.title !== after.title) {
    const brand = s.selling.listings.catalog.productByAsin(after.asin)?.brand ?? s.seller.name;
    s.hub.selling('BRANDED_ITEM_CONTENT_CHANGE', sellerId, brandedItemContentChange(after, brand, ['item_name']));
  }
}

export function adsEntityChanged(s: EventSources, profileId: string, resource: SpResource, after: unknown): void {
  const ads = s.ads.profile(profileId);
  if (ads) raiseEntityChange(s, ads, resource, after as Record<string, unknown>);
}
