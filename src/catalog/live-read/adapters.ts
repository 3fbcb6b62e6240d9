import type { Rate } from './budget.js';
import type { ParameterRules } from './parameters.js';
import type { LiveReadTargetType, ReadScope } from './target.js';

// What each reviewed live read (src/catalog/reviewed.ts) needs beyond its cataloged contract,
// by operationId: the target type it reads, the parameters the target fixes (the caller may
// repeat them, never change them) or lets the caller choose within its scope, where the
// provider's page token goes and where the next one comes back, how the answer shows it is
// about the target (identity), and the provider's rate for the shared budget (its documented
// usage plan; the ads API publishes none, so one request a second with bursts of five). A
// reviewed live read without an entry here is `operation_unavailable` (`adapter_missing`).

export interface LiveReadAdapter {
  target: LiveReadTargetType;
  derive(scope: ReadScope): Record<string, unknown>;
  withinScope?(scope: ReadScope): NonNullable<ParameterRules['withinScope']>;
  /** values of `withinScope` parameters when the caller gives none */
  defaults?(scope: ReadScope): Record<string, unknown>;
  paging?: { parameter: string; next(answer: unknown): unknown };
  /** why the answer is not about the target; null when it is */
  identity?(answer: unknown, scope: ReadScope): string | null;
  rate: Rate;
}

const field = (v: unknown, key: string): unknown =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const differs = (what: string, got: unknown, want: string | undefined) =>
  got !== undefined && got !== want ? `the answer names ${what} '${String(got)}', not the target's '${want}'` : null;

const SCOPE_HEADER = 'Amazon-Advertising-API-Scope';
const ADS_RATE: Rate = { perSecond: 1, burst: 5 };

/** Sponsored Products v3 lists: POST /sp/<resource>/list in the profile's scope, paged by nextToken in the body. */
const spList: LiveReadAdapter = {
  target: 'AdvertisingProfile',
  derive: (s) => ({ [SCOPE_HEADER]: s.profileId }),
  paging: { parameter: 'nextToken', next: (a) => field(a, 'nextToken') },
  rate: ADS_RATE,
};

export const LIVE_READ_ADAPTERS: Readonly<Record<string, LiveReadAdapter>> = {
  ListSponsoredProductsCampaigns: spList,
  ListSponsoredProductsAdGroups: spList,
  ListSponsoredProductsProductAds: spList,
  ListSponsoredProductsKeywords: spList,
  ListSponsoredProductsTargetingClauses: spList,
  // the advertiser's rules, read in the scope of one of its profiles: the first unless the caller names another
  GetSPBudgetRulesForAdvertiser: {
    target: 'Advertiser',
    derive: () => ({}),
    withinScope: (s) => {
      const profiles = s.account.ads!.profiles.map((p) => p.provider_profile_id);
      return {
        [SCOPE_HEADER]: {
          allows: (v) => typeof v === 'string' && profiles.includes(v),
          why: `is not one of the advertiser's profiles (${profiles.join(', ')})`,
        },
      };
    },
    defaults: (s) => ({ [SCOPE_HEADER]: s.account.ads!.profiles[0]?.provider_profile_id }),
    paging: { parameter: 'nextToken', next: (a) => field(a, 'nextToken') },
    rate: ADS_RATE,
  },
  getInventorySummaries: {
    target: 'Inventory',
    derive: (s) => ({
      granularityType: 'Marketplace',
      granularityId: s.marketplaceId,
      marketplaceIds: [s.marketplaceId],
    }),
    paging: { parameter: 'nextToken', next: (a) => field(field(a, 'pagination'), 'nextToken') },
    identity: (a, s) =>
      differs('the marketplace', field(field(field(a, 'payload'), 'granularity'), 'granularityId'), s.marketplaceId),
    rate: { perSecond: 2, burst: 2 },
  },
  getListingsItem: {
    target: 'Listing',
    derive: (s) => ({ sellerId: s.sellerId, sku: s.sku, marketplaceIds: [s.marketplaceId] }),
    identity: (a, s) => differs('the SKU', field(a, 'sku'), s.sku),
    rate: { perSecond: 5, burst: 10 },
  },
  getCatalogItem: {
    target: 'AmazonResource',
    derive: (s) => ({ asin: s.asin, marketplaceIds: [s.marketplaceId] }),
    identity: (a, s) => differs('the ASIN', field(a, 'asin'), s.asin),
    rate: { perSecond: 2, burst: 2 },
  },
  getListingsRestrictions: {
    target: 'AmazonResource',
    derive: (s) => ({ asin: s.asin, sellerId: s.sellerId, marketplaceIds: [s.marketplaceId] }),
    identity: (a, s) =>
      list(field(a, 'restrictions'))
        .map((r) => differs('the marketplace', field(r, 'marketplaceId'), s.marketplaceId))
        .find(Boolean) ?? null,
    rate: { perSecond: 5, burst: 10 },
  },
  getMarketplaceParticipations: {
    target: 'SellingPartner',
    derive: () => ({}),
    rate: { perSecond: 0.016, burst: 15 },
  },
};
