import type { LiveListing } from '../selling/listings-state.js';

// Payloads of the listing notifications (PascalCase, per the published examples), built from
// the listing as the marketplace shows it now.

/** The summaries' status list: a buyable listing is discoverable too; none while unreported. */
export const statusList = (l: LiveListing): string[] =>
  l.status === null ? [] : l.status === 'BUYABLE' ? ['BUYABLE', 'DISCOVERABLE'] : [l.status];

export const listingStatusChange = (sellerId: string, l: LiveListing) => ({
  SellerId: sellerId,
  MarketplaceId: l.marketplaceId,
  Asin: l.asin,
  Sku: l.sku,
  CreatedDate: l.createdAt,
  Status: statusList(l),
});

/** A listing that stopped being buyable carries an error that suppresses it from search; a buyable one at most a warning. */
export const listingIssuesChange = (sellerId: string, l: LiveListing) => {
  const suppressed = l.status !== 'BUYABLE';
  return {
    SellerId: sellerId,
    MarketplaceId: l.marketplaceId,
    Asin: l.asin,
    Sku: l.sku,
    Severities: suppressed ? ['ERROR'] : ['WARNING'],
    EnforcementActions: suppressed ? ['SEARCH_SUPPRESSED'] : [],
  };
};

export const mfnQuantityChange = (sellerId: string, l: LiveListing) => ({
  SellerId: sellerId,
  FulfillmentChannelCode: 'DEFAULT',
  Sku: l.sku,
  Quantity: l.quantity,
});

export const brandedItemContentChange = (l: LiveListing, brandName: string, attributesChanged: readonly string[]) => ({
  MarketplaceId: l.marketplaceId,
  BrandName: brandName,
  Asin: l.asin,
  AttributesChanged: [...attributesChanged],
});
