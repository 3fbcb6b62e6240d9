import { AS_SENT, each, type Notes } from '../fields.js';
import { SAMPLE, type EventContract } from './envelope.js';

// Marketing Stream messages: one dataset row in its own keys (no envelope). The hourly
// sp-traffic / sp-conversion rows are snake_case; budget-usage and the entity datasets camelCase.
// Money is the provider's number in major units of the profile currency.

const stream = (fixture: Record<string, unknown>, notes: Notes): EventContract => ({ fixture, notes });

export const budgetUsage = stream(
  {
    advertiserId: SAMPLE.advertiserId,
    marketplaceId: SAMPLE.marketplaceId,
    dataset_id: 'budget-usage',
    budgetScopeId: SAMPLE.campaignId,
    budgetScopeType: 'CAMPAIGN',
    advertisingProductType: 'SPONSORED_PRODUCTS',
    budget: 50,
    budgetUsagePercentage: 85,
    usageUpdatedTimestamp: SAMPLE.at,
  },
  {
    budgetScopeId: { description: 'the campaign or portfolio id (provider id)' },
    budgetScopeType: { description: 'CAMPAIGN or PORTFOLIO' },
    budget: { unit: AS_SENT, description: 'the budget the usage is measured against (a number here)' },
    budgetUsagePercentage: { unit: 'percent 0-100', description: 'consumed so far; one message per 5% step' },
  },
);

const hourKeys = {
  marketplace_id: SAMPLE.marketplaceId,
  currency: SAMPLE.currency,
  advertiser_id: SAMPLE.advertiserId,
  campaign_id: SAMPLE.campaignId,
  ad_group_id: SAMPLE.adGroupId,
  ad_id: SAMPLE.adId,
  keyword_id: SAMPLE.targetId,
};
const hourNotes: Notes = {
  idempotency_id: { description: 'the fact id: a restated hour keeps it' },
  keyword_id: { description: 'the keyword or target id (provider id)' },
  time_window_start: { description: 'start of the hour covered (ISO 8601 UTC), not delivery time' },
};

export const spTraffic = stream(
  {
    idempotency_id: 'bd8c9ce1-c0c3-6d7d-d91d-957721cb7de1',
    dataset_id: 'sp-traffic',
    ...hourKeys,
    keyword_text: 'travel mug',
    match_type: 'EXACT',
    placement: 'Top of Search on-Amazon',
    time_window_start: SAMPLE.hour,
    clicks: 4,
    impressions: 310,
    cost: 3.12,
  },
  {
    ...hourNotes,
    keyword_text: { optional: true, description: 'keywords only' },
    match_type: { optional: true, description: 'keywords only: EXACT, PHRASE, BROAD' },
    cost: { unit: `${AS_SENT} (currency key)` },
  },
);

const WINDOWS = [1, 7, 14, 30];
const attributed = Object.fromEntries(
  WINDOWS.flatMap((d) => [
    [`attributed_conversions_${d}d`, 2],
    [`attributed_conversions_${d}d_same_sku`, 2],
    [`attributed_units_ordered_${d}d`, 2],
    [`attributed_sales_${d}d`, 91.98],
    [`attributed_sales_${d}d_same_sku`, 91.98],
  ]),
);

export const spConversion = stream(
  {
    idempotency_id: '9089e04f-bf4e-6a3b-73cd-2d6fd9e09008',
    dataset_id: 'sp-conversion',
    ...hourKeys,
    placement: 'Top of Search on-Amazon',
    time_window_start: SAMPLE.hour,
    ...attributed,
  },
  {
    ...hourNotes,
    ...each(
      WINDOWS.flatMap((d) => [`attributed_sales_${d}d`, `attributed_sales_${d}d_same_sku`]),
      { unit: `${AS_SENT} (currency key)`, description: 'attributed sales over the window; restated as it matures' },
    ),
  },
);

const entity = (datasetId: string, fields: Record<string, unknown>) => ({
  datasetId,
  advertiserId: SAMPLE.advertiserId,
  marketplaceId: SAMPLE.marketplaceId,
  adProduct: 'SPONSORED_PRODUCTS',
  version: 3,
  state: 'ENABLED',
  audit: { creationDateTime: '2026-04-12T09:00:00Z', lastUpdatedDateTime: SAMPLE.at },
  ...fields,
});
const entityNotes: Notes = {
  version: { description: 'counts the changes of the entity: order messages by it' },
  state: { description: 'ENABLED, PAUSED or ARCHIVED' },
  'audit.lastUpdatedDateTime': { description: 'when this change happened (ISO 8601 UTC)' },
};

export const campaignChange = stream(
  entity('campaigns', {
    campaignId: SAMPLE.campaignId,
    portfolioId: '283940192837465',
    name: 'Travel mugs - SP Manual',
    targetingSettings: 'MANUAL',
    startDateTime: '2026-04-12T00:00:00Z',
    endDateTime: null,
    budgets: [
      {
        budgetType: 'MONETARY',
        recurrenceTimePeriod: 'DAILY',
        budgetValue: { monetaryBudgetValue: { monetaryBudget: { value: 50, currencyCode: SAMPLE.currency } } },
      },
    ],
  }),
  {
    ...entityNotes,
    portfolioId: { optional: true, description: 'present when the campaign is in a portfolio' },
    endDateTime: { type: 'string', nullable: true, description: 'null when open-ended' },
    'budgets[].budgetValue.monetaryBudgetValue.monetaryBudget.value': {
      unit: AS_SENT,
      description: 'the new daily budget (a number here)',
    },
  },
);

export const adGroupChange = stream(
  entity('adgroups', {
    adGroupId: SAMPLE.adGroupId,
    campaignId: SAMPLE.campaignId,
    name: 'Ad group 1',
    bid: { defaultBid: 0.75, currencyCode: SAMPLE.currency },
  }),
  { ...entityNotes, 'bid.defaultBid': { unit: AS_SENT } },
);

export const adChange = stream(
  entity('ads', {
    adId: SAMPLE.adId,
    adGroupId: SAMPLE.adGroupId,
    campaignId: SAMPLE.campaignId,
    creative: { products: [{ productIdType: 'SKU', productId: SAMPLE.sku }] },
  }),
  { ...entityNotes, 'creative.products[].productIdType': { description: 'SKU (sellers) or ASIN (vendors)' } },
);

export const targetChange = stream(
  entity('targets', {
    targetId: SAMPLE.targetId,
    adGroupId: SAMPLE.adGroupId,
    campaignId: SAMPLE.campaignId,
    negative: false,
    targetLevel: 'AD_GROUP',
    targetType: 'KEYWORD',
    bid: { bid: 0.9, currencyCode: SAMPLE.currency },
    targetDetails: { keywordTarget: { keyword: 'travel mug', matchType: 'EXACT' } },
  }),
  {
    ...entityNotes,
    adGroupId: { optional: true, description: 'absent for a campaign-level exclusion' },
    negative: { description: 'true for an exclusion' },
    targetLevel: { description: 'AD_GROUP or CAMPAIGN' },
    targetType: { description: 'KEYWORD, PRODUCT, PRODUCT_CATEGORY or AUTO' },
    bid: { optional: true, description: 'positive targets only' },
    'bid.bid': { unit: AS_SENT },
    targetDetails: {
      varies: true,
      description: 'keywordTarget { keyword, matchType } or productTarget { expression } as targetType says',
    },
  },
);
