import { DERIVED_FIELDS, type Action, type TargetType } from '../../domain/mutation/payloads.js';
import type { ListingsItemPatchRequest } from '../../marketplace/clients/index.js';
import { SP_RESOURCES, type SpResource } from '../../marketplace/clients/ads-sp-types.js';
import type { AdsEntityKind, SpTargetKind } from '../../domain/observation/ids.js';

// The marketplace request a receipt stands for: a Listings Items patch, or one item of a
// Sponsored Products v3 create / update / delete. Pure: the dispatcher sends it, reconciliation
// looks for what a creation of it would have made.

export interface ReceiptToSend {
  target: { type: TargetType; id: string };
  action: Action;
  payload: Record<string, unknown>;
  /** provider ids resolved at admission */
  provider: Record<string, string>;
}

export type MarketplaceRequest =
  | { api: 'listings'; sku: string; marketplaceId: string; body: ListingsItemPatchRequest }
  | {
      api: 'sp';
      profileId: string;
      resource: SpResource;
      operation: 'create' | 'update';
      item: Record<string, unknown>;
      creates: AdsEntityKind | null;
    }
  | { api: 'sp'; profileId: string; resource: SpResource; operation: 'delete'; id: string; creates: null };

/** The v3 resource of each kind of target (keywords and targeting clauses are separate id spaces). */
export const TARGET_RESOURCES: Record<SpTargetKind, SpResource> = {
  keyword: 'keywords',
  target: 'targets',
  negative_keyword: 'negativeKeywords',
  negative_target: 'negativeTargets',
  campaign_negative_keyword: 'campaignNegativeKeywords',
  campaign_negative_target: 'campaignNegativeTargets',
};
const KIND_OF_RESOURCE = Object.fromEntries(Object.entries(TARGET_RESOURCES).map(([k, r]) => [r, k])) as Record<
  string,
  SpTargetKind
>;

export class UnsendableReceipt extends Error {}

const need = (provider: Record<string, string>, key: string): string => {
  const value = provider[key];
  if (value === undefined) throw new UnsendableReceipt(`the receipt's provider ids lack ${key}`);
  return value;
};

/** The payload without the fields derived from the target (ids, adProduct, scope, countries). */
const own = (payload: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(payload).filter(([k]) => !DERIVED_FIELDS.includes(k)));

/** A bid object `{ bid }` of the payload as the v3 number. */
const flatBid = (fields: Record<string, unknown>) => {
  const { bid, ...rest } = fields;
  return bid === undefined ? rest : { ...rest, bid: (bid as { bid: number }).bid };
};

export function marketplaceRequest(r: ReceiptToSend): MarketplaceRequest {
  const p = r.provider;
  if (r.target.type === 'Listing') {
    return {
      api: 'listings',
      sku: need(p, 'sku'),
      marketplaceId: need(p, 'marketplaceId'),
      body: r.payload as unknown as ListingsItemPatchRequest,
    };
  }
  const profileId = need(p, 'profileId');
  if (r.action === 'update' || r.action === 'archive') {
    const { resource, id } = existingEntity(r);
    if (r.action === 'archive') return { api: 'sp', profileId, resource, operation: 'delete', id, creates: null };
    return {
      api: 'sp',
      profileId,
      resource,
      operation: 'update',
      item: { [SP_RESOURCES[resource].idKey]: id, ...flatBid(own(r.payload)) },
      creates: null,
    };
  }
  const fields = own(r.payload);
  switch (r.action) {
    case 'create_campaign':
      return { api: 'sp', profileId, resource: 'campaigns', operation: 'create', item: fields, creates: 'campaign' };
    case 'create_ad_group':
      return {
        api: 'sp',
        profileId,
        resource: 'adGroups',
        operation: 'create',
        item: { campaignId: need(p, 'campaignId'), ...fields },
        creates: 'ad_group',
      };
    case 'create_ad':
      return {
        api: 'sp',
        profileId,
        resource: 'productAds',
        operation: 'create',
        item: { campaignId: need(p, 'campaignId'), adGroupId: need(p, 'adGroupId'), ...fields },
        creates: 'product_ad',
      };
    case 'create_target':
      return targetCreation(r, profileId);
  }
}

function existingEntity(r: ReceiptToSend): { resource: SpResource; id: string } {
  const p = r.provider;
  switch (r.target.type) {
    case 'Campaign':
      return { resource: 'campaigns', id: need(p, 'campaignId') };
    case 'AdGroup':
      return { resource: 'adGroups', id: need(p, 'adGroupId') };
    case 'Ad':
      return { resource: 'productAds', id: need(p, 'adId') };
    case 'Target': {
      const resource = TARGET_RESOURCES[need(p, 'targetKind') as SpTargetKind];
      if (!resource) throw new UnsendableReceipt(`unknown target kind ${p.targetKind}`);
      return { resource, id: need(p, 'targetId') };
    }
    default:
      throw new UnsendableReceipt(`${r.action} does not apply to a ${r.target.type}`);
  }
}

type TargetPayload = {
  targetType: 'KEYWORD' | 'PRODUCT' | 'PRODUCT_CATEGORY';
  negative: boolean;
  state: string;
  bid?: { bid: number };
  targetDetails: {
    keywordTarget?: { keyword: string; matchType: string };
    productTarget?: { product: { productId: string }; matchType?: 'PRODUCT_EXACT' | 'PRODUCT_SIMILAR' };
    productCategoryTarget?: { productCategoryRefinement: { productCategoryId: string } };
  };
};

/** Spec 4.12 target payloads onto the v3 keyword, targeting clause and negative resources. */
function targetCreation(r: ReceiptToSend, profileId: string): MarketplaceRequest {
  const t = r.payload as unknown as TargetPayload;
  const campaignLevel = r.target.type === 'Campaign';
  const parents = campaignLevel
    ? { campaignId: need(r.provider, 'campaignId') }
    : { campaignId: need(r.provider, 'campaignId'), adGroupId: need(r.provider, 'adGroupId') };
  const bid = t.bid ? { bid: t.bid.bid } : {};
  let resource: SpResource;
  let item: Record<string, unknown>;
  if (t.targetType === 'KEYWORD') {
    const { keyword, matchType } = t.targetDetails.keywordTarget!;
    resource = campaignLevel ? 'campaignNegativeKeywords' : t.negative ? 'negativeKeywords' : 'keywords';
    item = {
      ...parents,
      keywordText: keyword,
      matchType: t.negative ? `NEGATIVE_${matchType}` : matchType,
      state: t.state,
      ...(t.negative ? {} : bid),
    };
  } else {
    const expression =
      t.targetType === 'PRODUCT'
        ? [
            {
              type:
                t.targetDetails.productTarget!.matchType === 'PRODUCT_SIMILAR' ? 'ASIN_EXPANDED_FROM' : 'ASIN_SAME_AS',
              value: t.targetDetails.productTarget!.product.productId,
            },
          ]
        : [
            {
              type: 'ASIN_CATEGORY_SAME_AS',
              value: t.targetDetails.productCategoryTarget!.productCategoryRefinement.productCategoryId,
            },
          ];
    resource = campaignLevel ? 'campaignNegativeTargets' : t.negative ? 'negativeTargets' : 'targets';
    item = t.negative
      ? { ...parents, expression, state: t.state }
      : { ...parents, expression, expressionType: 'MANUAL', state: t.state, ...bid };
  }
  return { api: 'sp', profileId, resource, operation: 'create', item, creates: KIND_OF_RESOURCE[resource]! };
}

/** The fields that tell one created entity from its siblings: what reconciliation matches on. */
const IDENTITY: Record<SpResource, readonly string[]> = {
  campaigns: ['name'],
  adGroups: ['campaignId', 'name'],
  productAds: ['adGroupId', 'sku', 'asin'],
  keywords: ['adGroupId', 'keywordText', 'matchType'],
  targets: ['adGroupId', 'expression'],
  negativeKeywords: ['adGroupId', 'keywordText', 'matchType'],
  negativeTargets: ['adGroupId', 'expression'],
  campaignNegativeKeywords: ['campaignId', 'keywordText', 'matchType'],
  campaignNegativeTargets: ['campaignId', 'expression'],
};

/** Whether a listed entity is what this creation item would have made. */
export function matchesCreation(
  resource: SpResource,
  item: Record<string, unknown>,
  entity: Record<string, unknown>,
): boolean {
  return IDENTITY[resource].every(
    (k) => item[k] === undefined || JSON.stringify(item[k]) === JSON.stringify(entity[k]),
  );
}
