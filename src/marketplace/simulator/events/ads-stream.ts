import { createHash } from 'node:crypto';
import type { SpResource } from '../../clients/ads-sp-types.js';
import { rngOf } from '../ads/seeded.js';
import { roundMoney, type CampaignMetricsParams, type ProfileAds } from '../ads/sp-generate.js';
import { DATASETS, type AdsType } from './types.js';

// Marketing Stream messages, each in its dataset's own keys (the data guide's): the hourly
// sp-traffic / sp-conversion rows (snake_case, with an idempotency_id), budget-usage, and the
// entity datasets campaigns / adgroups / ads / targets (camelCase, versioned, audited).

type Entity = Record<string, unknown>;

/** A UUID-shaped id that is the same for the same parts: redeliveries and restatements of one fact share it. */
export function stableId(...parts: ReadonlyArray<string | number>): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** (advertiser, marketplace) names the profile a message belongs to. */
const account = (advertiserId: string, ads: ProfileAds) => ({ advertiserId, marketplaceId: ads.marketplaceId });

export const budgetUsage = (
  advertiserId: string,
  ads: ProfileAds,
  campaign: Entity,
  percentage: number,
  at: string,
) => ({
  ...account(advertiserId, ads),
  dataset_id: DATASETS.BUDGET_USAGE,
  budgetScopeId: String(campaign.campaignId),
  budgetScopeType: 'CAMPAIGN',
  advertisingProductType: 'SPONSORED_PRODUCTS',
  budget: (campaign.budget as { budget: number }).budget,
  budgetUsagePercentage: percentage,
  usageUpdatedTimestamp: at,
});

/** Where an hour's traffic went: one ad and one keyword or target of the campaign. */
export interface HourCell {
  campaignId: string;
  adGroupId: string;
  adId: string;
  target: Entity;
}

function cellKeys(advertiserId: string, ads: ProfileAds, cell: HourCell, hourStart: number) {
  const keyword = typeof cell.target.keywordId === 'string';
  return {
    marketplace_id: ads.marketplaceId,
    currency: ads.currency,
    advertiser_id: advertiserId,
    campaign_id: cell.campaignId,
    ad_group_id: cell.adGroupId,
    ad_id: cell.adId,
    keyword_id: String(cell.target.keywordId ?? cell.target.targetId),
    ...(keyword ? { keyword_text: cell.target.keywordText, match_type: cell.target.matchType } : {}),
    placement: 'Top of Search on-Amazon',
    time_window_start: new Date(hourStart).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

/** One hour of a campaign, drawn from (seed, campaign, hour) around its daily figures. */
export function hourFigures(
  seed: number,
  p: CampaignMetricsParams,
  campaignId: string,
  hourStart: number,
  digits: number,
) {
  const rng = rngOf(seed, 'stream-hour', campaignId, hourStart);
  const impressions = Math.round((p.baseImpressions / 24) * (0.5 + rng.next()));
  const clicks = Math.round(impressions * p.ctr * (0.75 + 0.5 * rng.next()));
  const cost = roundMoney(clicks * p.bid * p.cpcFactor, digits);
  const conversions = Math.round(clicks * p.cvr * (0.5 + rng.next()));
  const sales = roundMoney(conversions * p.unitPrice, digits);
  return { impressions, clicks, cost, conversions, sales };
}

type Figures = ReturnType<typeof hourFigures>;

export function spTraffic(advertiserId: string, ads: ProfileAds, cell: HourCell, hourStart: number, f: Figures) {
  const keys = cellKeys(advertiserId, ads, cell, hourStart);
  return {
    idempotency_id: stableId(DATASETS.SP_TRAFFIC, ads.profileId, keys.keyword_id, keys.ad_id, hourStart),
    dataset_id: DATASETS.SP_TRAFFIC,
    ...keys,
    clicks: f.clicks,
    impressions: f.impressions,
    cost: f.cost,
  };
}

export function spConversion(advertiserId: string, ads: ProfileAds, cell: HourCell, hourStart: number, f: Figures) {
  const keys = cellKeys(advertiserId, ads, cell, hourStart);
  const { keyword_text: _text, match_type: _match, ...conversionKeys } = keys as typeof keys & Entity;
  const windows: Entity = {};
  // conversions attribute over longer windows as they mature; same-SKU ones are most of them
  for (const [days, share] of [
    [1, 0.6],
    [7, 0.85],
    [14, 0.95],
    [30, 1],
  ] as const) {
    const conversions = Math.round(f.conversions * share);
    windows[`attributed_conversions_${days}d`] = conversions;
    windows[`attributed_conversions_${days}d_same_sku`] = Math.round(conversions * 0.8);
    windows[`attributed_units_ordered_${days}d`] = conversions;
    windows[`attributed_sales_${days}d`] = roundMoney(f.sales * share, ads.digits);
    windows[`attributed_sales_${days}d_same_sku`] = roundMoney(f.sales * share * 0.8, ads.digits);
  }
  return {
    idempotency_id: stableId(DATASETS.SP_CONVERSION, ads.profileId, keys.keyword_id, keys.ad_id, hourStart),
    dataset_id: DATASETS.SP_CONVERSION,
    ...conversionKeys,
    ...windows,
  };
}

/** The stream type of each Sponsored Products resource's changes. */
export const CHANGE_TYPE: Readonly<Record<SpResource, AdsType>> = {
  campaigns: 'CAMPAIGN_CHANGE',
  adGroups: 'AD_GROUP_CHANGE',
  productAds: 'AD_CHANGE',
  keywords: 'TARGET_CHANGE',
  targets: 'TARGET_CHANGE',
  negativeKeywords: 'TARGET_CHANGE',
  negativeTargets: 'TARGET_CHANGE',
  campaignNegativeKeywords: 'TARGET_CHANGE',
  campaignNegativeTargets: 'TARGET_CHANGE',
};

/** An entity dataset's message for the entity as it is after a change; `version` counts its changes. */
export function entityChange(
  advertiserId: string,
  ads: ProfileAds,
  resource: SpResource,
  entity: Entity,
  version: number,
  at: string,
) {
  const created = (entity.extendedData as { creationDateTime?: string } | undefined)?.creationDateTime ?? at;
  const common = {
    datasetId: DATASETS[CHANGE_TYPE[resource]],
    ...account(advertiserId, ads),
    adProduct: 'SPONSORED_PRODUCTS',
    version,
    state: entity.state,
    audit: { creationDateTime: created, lastUpdatedDateTime: at },
  };
  const money = (value: unknown) => ({ value, currencyCode: ads.currency });
  switch (CHANGE_TYPE[resource]) {
    case 'CAMPAIGN_CHANGE':
      return {
        ...common,
        campaignId: entity.campaignId,
        ...(entity.portfolioId ? { portfolioId: entity.portfolioId } : {}),
        name: entity.name,
        targetingSettings: entity.targetingType,
        startDateTime: `${String(entity.startDate)}T00:00:00Z`,
        endDateTime: entity.endDate ? `${String(entity.endDate)}T23:59:59Z` : null,
        budgets: [
          {
            budgetType: 'MONETARY',
            recurrenceTimePeriod: 'DAILY',
            budgetValue: { monetaryBudgetValue: { monetaryBudget: money((entity.budget as Entity).budget) } },
          },
        ],
      };
    case 'AD_GROUP_CHANGE':
      return {
        ...common,
        adGroupId: entity.adGroupId,
        campaignId: entity.campaignId,
        name: entity.name,
        bid: { defaultBid: entity.defaultBid, currencyCode: ads.currency },
      };
    case 'AD_CHANGE':
      return {
        ...common,
        adId: entity.adId,
        adGroupId: entity.adGroupId,
        campaignId: entity.campaignId,
        creative: { products: [{ productIdType: entity.asin ? 'ASIN' : 'SKU', productId: entity.asin ?? entity.sku }] },
      };
    default: {
      const keyword = typeof entity.keywordText === 'string';
      return {
        ...common,
        targetId: entity.keywordId ?? entity.targetId,
        ...(entity.adGroupId ? { adGroupId: entity.adGroupId } : {}),
        campaignId: entity.campaignId,
        negative: resource.toLowerCase().includes('negative'),
        targetLevel: entity.adGroupId ? 'AD_GROUP' : 'CAMPAIGN',
        targetType: keyword ? 'KEYWORD' : entity.expressionType === 'AUTO' ? 'AUTO' : 'PRODUCT',
        ...(typeof entity.bid === 'number' ? { bid: { bid: entity.bid, currencyCode: ads.currency } } : {}),
        targetDetails: keyword
          ? { keywordTarget: { keyword: entity.keywordText, matchType: entity.matchType } }
          : { productTarget: { expression: entity.expression } },
      };
    }
  }
}
