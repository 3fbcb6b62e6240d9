// The observed datasets (docs/observed-data.md): the name a sync records its pages under
// (`PageObserved.dataset`) and the name the projections and views read them by. Writers and
// readers share these constants, so a renamed dataset can't leave one side reading nothing.

export const LISTINGS_DATASET = 'listings';
export const ORDERS_DATASET = 'orders';
export const INVENTORY_DATASET = 'fba_inventory';
export const CATALOG_DATASET = 'catalog_items';
/** Data Kiosk economics per SKU per day, scope `<marketplace>/<YYYY-MM-DD>`. */
export const ECONOMICS_DATASET = 'seller_economics';
export const SQP_DATASET = 'search_query_performance';
export const COUPONS_DATASET = 'coupon_performance';
export const PROMOTIONS_DATASET = 'promotion_performance';
export const VENDOR_DATASETS = ['vendor_sales', 'vendor_traffic', 'vendor_inventory'] as const;

/** Dataset of each Sponsored Products resource (keys are the API's resource names); scope = the provider profile id. */
export const SP_ENTITY_DATASETS = {
  campaigns: 'sp_campaigns',
  adGroups: 'sp_ad_groups',
  productAds: 'sp_product_ads',
  keywords: 'sp_keywords',
  targets: 'sp_targets',
  negativeKeywords: 'sp_negative_keywords',
  negativeTargets: 'sp_negative_targets',
  campaignNegativeKeywords: 'sp_campaign_negative_keywords',
  campaignNegativeTargets: 'sp_campaign_negative_targets',
} as const;

/** Daily spCampaigns report rows, one scope per profile and profile-local day. */
export const SP_CAMPAIGN_DAILY = 'sp_campaign_daily';

/** Daily spTargeting report rows (one per keyword or targeting clause), scoped like the campaign report. */
export const SP_TARGETING_DAILY = 'sp_targeting_daily';

export const dailyScope = (providerProfileId: string, date: string): string => `${providerProfileId}/${date}`;
