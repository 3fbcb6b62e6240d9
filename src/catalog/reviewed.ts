// Spec 4.9's reviewed operations (decision 105): the eleven live reads, the three queued report
// requests and the thirteen native Sponsored Products writes, each by its qualified key with the
// target type it runs against; and the restricted operations, always refused. Every other
// cataloged operation is generic: searchable and described, never executable. Keys name the
// contract version, so a provider's new version is generic until it is reviewed too.

/** The catalog's two providers: the selling API and the advertising API (decision 104). */
export const PROVIDERS = ['sp_api', 'ads_api'] as const;
export type Provider = (typeof PROVIDERS)[number];

export type ReviewKind = 'live_read' | 'report' | 'queued_write';

/** What a target `{ type, id }` names; the reads' types are spec 4.9's, the writes' spec 4.8's. */
export type ReviewedTargetType =
  | 'AdvertisingProfile'
  | 'Advertiser'
  | 'Inventory'
  | 'Listing'
  | 'AmazonResource'
  | 'SellingPartner'
  | 'Campaign'
  | 'AdGroup'
  | 'Ad'
  | 'Target';

/** The spec 4.8 action a queued write carries out. */
export type ReviewedAction =
  'create_campaign' | 'create_ad_group' | 'create_ad' | 'create_target' | 'update' | 'archive';

export interface ReviewedOperation {
  /** `<provider>:<family>:<version>:<operationId>` */
  key: string;
  kind: ReviewKind;
  target_type: ReviewedTargetType;
  /** queued writes only */
  action?: ReviewedAction;
  /** whether the service imports what it returns into its own read models (none does yet) */
  ingested: boolean;
}

const SP_ADS = 'ads_api:sponsored-products:3.0';

const read = (key: string, target_type: ReviewedTargetType): ReviewedOperation => ({
  key,
  kind: 'live_read',
  target_type,
  ingested: false,
});
const report = (key: string, target_type: ReviewedTargetType): ReviewedOperation => ({
  key,
  kind: 'report',
  target_type,
  ingested: false,
});
const write = (operationId: string, target_type: ReviewedTargetType, action: ReviewedAction): ReviewedOperation => ({
  key: `${SP_ADS}:${operationId}`,
  kind: 'queued_write',
  target_type,
  action,
  ingested: false,
});

export const REVIEWED: readonly ReviewedOperation[] = [
  // live reads: six on the advertising side…
  read(`${SP_ADS}:ListSponsoredProductsCampaigns`, 'AdvertisingProfile'),
  read(`${SP_ADS}:ListSponsoredProductsAdGroups`, 'AdvertisingProfile'),
  read(`${SP_ADS}:ListSponsoredProductsProductAds`, 'AdvertisingProfile'),
  read(`${SP_ADS}:ListSponsoredProductsKeywords`, 'AdvertisingProfile'),
  read(`${SP_ADS}:ListSponsoredProductsTargetingClauses`, 'AdvertisingProfile'),
  read(`${SP_ADS}:GetSPBudgetRulesForAdvertiser`, 'Advertiser'),
  // …and five on the selling side
  read('sp_api:fba-inventory:v1:getInventorySummaries', 'Inventory'),
  read('sp_api:listings-items:2021-08-01:getListingsItem', 'Listing'),
  read('sp_api:catalog-items:2022-04-01:getCatalogItem', 'AmazonResource'),
  read('sp_api:listings-restrictions:2021-08-01:getListingsRestrictions', 'AmazonResource'),
  read('sp_api:sellers:v1:getMarketplaceParticipations', 'SellingPartner'),
  // queued report requests
  report('sp_api:reports:2021-06-30:createReport', 'SellingPartner'),
  report('sp_api:data-kiosk:2023-11-15:createQuery', 'SellingPartner'),
  report('ads_api:reporting:3.0:createAsyncReport', 'AdvertisingProfile'),
  // queued writes: create and update for every entity, archive for the three parents (a
  // target's archive stays queue_mutations' own `archive` action, outside the catalog)
  write('CreateSponsoredProductsCampaigns', 'AdvertisingProfile', 'create_campaign'),
  write('UpdateSponsoredProductsCampaigns', 'Campaign', 'update'),
  write('DeleteSponsoredProductsCampaigns', 'Campaign', 'archive'),
  write('CreateSponsoredProductsAdGroups', 'Campaign', 'create_ad_group'),
  write('UpdateSponsoredProductsAdGroups', 'AdGroup', 'update'),
  write('DeleteSponsoredProductsAdGroups', 'AdGroup', 'archive'),
  write('CreateSponsoredProductsProductAds', 'AdGroup', 'create_ad'),
  write('UpdateSponsoredProductsProductAds', 'Ad', 'update'),
  write('DeleteSponsoredProductsProductAds', 'Ad', 'archive'),
  write('CreateSponsoredProductsKeywords', 'AdGroup', 'create_target'),
  write('UpdateSponsoredProductsKeywords', 'Target', 'update'),
  write('CreateSponsoredProductsTargetingClauses', 'AdGroup', 'create_target'),
  write('UpdateSponsoredProductsTargetingClauses', 'Target', 'update'),
];

/**
 * Operations that return buyers' personal data or hand out restricted data tokens: refused
 * whatever the caller asks (spec 4.9 approval gaps, 5.6); restricted data tokens are never requested.
 */
export const RESTRICTED: readonly { key: string; why: string }[] = [
  { key: 'sp_api:orders:v0:getOrderBuyerInfo', why: "returns the buyer's personal data" },
  { key: 'sp_api:orders:v0:getOrderAddress', why: "returns the buyer's shipping address" },
  { key: 'sp_api:orders:v0:getOrderItemsBuyerInfo', why: "returns the buyer's personal data" },
  { key: 'sp_api:orders:v0:getOrderRegulatedInfo', why: "returns the buyer's regulated order information" },
  { key: 'sp_api:tokens:2021-03-01:createRestrictedDataToken', why: 'issues restricted data tokens' },
];

const reviewedByKey = new Map(REVIEWED.map((r) => [r.key, r]));
const restrictedByKey = new Map(RESTRICTED.map((r) => [r.key, r]));

/** An operation's review: reviewed (with its kind), restricted, or generic (null). */
export type Review = ReviewedOperation | { key: string; kind: 'restricted'; why: string } | null;

export function reviewOf(key: string): Review {
  const restricted = restrictedByKey.get(key);
  if (restricted) return { ...restricted, kind: 'restricted' };
  return reviewedByKey.get(key) ?? null;
}

/** Executable means reviewed and carried out by the service; restricted and generic ones never are. */
export function isExecutable(key: string): boolean {
  return reviewedByKey.has(key);
}
