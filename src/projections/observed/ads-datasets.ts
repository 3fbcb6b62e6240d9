import { stableId } from '../../domain/shared/ids.js';

// The advertising datasets (docs/observed-data.md): one per Sponsored Products v3 resource,
// scope = the provider profile id; and the daily campaign and targeting reports, scope = `<profileId>/<date>`.

/** Dataset of each Sponsored Products resource (keys are the API's resource names). */
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

export type SpEntityDataset = (typeof SP_ENTITY_DATASETS)[keyof typeof SP_ENTITY_DATASETS];

/** Daily spCampaigns report rows, one scope per profile and profile-local day. */
export const SP_CAMPAIGN_DAILY = 'sp_campaign_daily';

/** Daily spTargeting report rows (one per keyword or targeting clause), scoped like the campaign report. */
export const SP_TARGETING_DAILY = 'sp_targeting_daily';

export const dailyScope = (providerProfileId: string, date: string): string => `${providerProfileId}/${date}`;

/** What a local ads id names: the kind of entity, since keyword and target ids are separate spaces. */
export type AdsEntityKind = 'campaign' | 'ad_group' | 'product_ad' | SpTargetKind;
export type SpTargetKind =
  | 'keyword'
  | 'target'
  | 'negative_keyword'
  | 'negative_target'
  | 'campaign_negative_keyword'
  | 'campaign_negative_target';

/**
 * The local id of an observed ads entity: stable for (account, provider profile, kind,
 * provider id), so a re-sync, a rebuild or a mutation receipt names the same entity the same way.
 */
export const adsEntityId = (
  kind: AdsEntityKind,
  account_id: string,
  providerProfileId: string,
  providerId: string,
): string => stableId(`ads-${kind}:${account_id}`, `${providerProfileId}/${providerId}`);
