import type { Profile } from '../../clients/ads-types.js';
import type { SpEntities, SpResource } from '../../clients/ads-sp-types.js';
import { addDays } from '../../../domain/shared/calendar.js';
import { minorDigits, type Catalog, type SimListing } from '../catalog.js';
import type { Rng } from '../prng.js';
import { entityId, rngOf } from './seeded.js';

// The fictional seller's Sponsored Products account in one profile, derived from the seed,
// the profile and the catalog alone. A profile's entities are generated on its first use
// (a few hundred at most), metrics never: they are computed per campaign and day on demand.

/** What the daily metrics of one campaign are computed from (major units of the profile currency). */
export interface CampaignMetricsParams {
  startDate: string;
  /** Days the campaign served nothing: [from, to) with to null while it still doesn't. */
  stops: Array<{ from: string; to: string | null }>;
  baseImpressions: number;
  ctr: number;
  /** share of the bid a click costs */
  cpcFactor: number;
  cvr: number;
  bid: number;
  budget: number;
  unitPrice: number;
}

export type SpEntityMaps = { [R in SpResource]: Map<string, SpEntities[R]> };

export interface ProfileAds {
  profileId: string;
  marketplaceId: string;
  currency: string;
  /** digits of the currency's minor unit: money on the wire is rounded to them */
  digits: number;
  timezone: string;
  entities: SpEntityMaps;
  metrics: Map<string, CampaignMetricsParams>;
  /** the listings campaigns advertise from; also prices campaigns created later */
  pool: readonly SimListing[];
}

/** Generated campaigns start in this span; paused and archived ones stopped in the next. */
const STARTS_FROM = '2024-03-01';
const STOPS_FROM = '2025-09-01';
/** Listings considered for advertising per profile: keeps bench-scale catalogs cheap here. */
const POOL_SIZE = 400;

const KINDS = ['auto', 'keyword', 'product'] as const;
type Kind = (typeof KINDS)[number];
const KIND_LABEL: Record<Kind, string> = { auto: 'SP Auto', keyword: 'SP Keywords', product: 'SP Product targeting' };
const AUTO_PREDICATES = [
  'QUERY_HIGH_REL_MATCHES',
  'QUERY_BROAD_REL_MATCHES',
  'ASIN_SUBSTITUTE_RELATED',
  'ASIN_ACCESSORY_RELATED',
];
const MATCH_TYPES = ['EXACT', 'PHRASE', 'BROAD'] as const;
const CATEGORIES: ReadonlyArray<readonly [id: string, name: string]> = [
  ['3744541', 'Kitchen Utensils & Gadgets'],
  ['1063306', 'Home Storage & Organization'],
  ['1069242', 'Office Products'],
  ['2975312', 'Dog Supplies'],
  ['3375251', 'Sports & Outdoors'],
];
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export const roundMoney = (major: number, digits: number): number => Math.round(major * 10 ** digits) / 10 ** digits;
/** The marketplace's lowest bid and budget (0.02 and 1 in cent currencies; 2 and 100 yen). */
export const minBid = (digits: number): number => (digits === 0 ? 2 : 0.02);
export const minBudget = (digits: number): number => (digits === 0 ? 100 : 1);

const emptyMaps = (): SpEntityMaps => ({
  campaigns: new Map(),
  adGroups: new Map(),
  productAds: new Map(),
  keywords: new Map(),
  targets: new Map(),
  negativeKeywords: new Map(),
  negativeTargets: new Map(),
  campaignNegativeKeywords: new Map(),
  campaignNegativeTargets: new Map(),
});

function advertisable(catalog: Catalog, marketplaceId: string): SimListing[] {
  const pool: SimListing[] = [];
  for (const listing of catalog.listingsIn(marketplaceId)) {
    if (listing.status === 'DELETED') continue;
    pool.push(listing);
    if (pool.length === POOL_SIZE) break;
  }
  return pool;
}

/** About one campaign per four listings, at least five (every state shows in the demo). */
const campaignCount = (poolSize: number): number => Math.min(200, Math.max(5, Math.ceil(poolSize / 4)));

const major = (listing: SimListing, digits: number) => listing.price / 10 ** digits;
const shortTitle = (listing: SimListing) => listing.title.split(',')[0]!;
const competitorAsin = (rng: Rng) => `B0${rng.chars(8, ALNUM)}`;

export function generateProfileAds(seed: number, profile: Profile, catalog: Catalog): ProfileAds {
  const profileId = String(profile.profileId);
  const marketplaceId = profile.accountInfo.marketplaceStringId;
  const digits = minorDigits(profile.currencyCode);
  const pool = advertisable(catalog, marketplaceId);
  const ads: ProfileAds = {
    profileId,
    marketplaceId,
    currency: profile.currencyCode,
    digits,
    timezone: profile.timezone,
    entities: emptyMaps(),
    metrics: new Map(),
    pool,
  };
  if (pool.length === 0) return ads;
  const e = ads.entities;
  const count = campaignCount(pool.length);
  for (let i = 0; i < count; i++) {
    const rng = rngOf(seed, profileId, 'campaign', i);
    const kind = KINDS[i % KINDS.length]!;
    const state = i % 5 === 2 ? 'PAUSED' : i % 5 === 4 ? 'ARCHIVED' : 'ENABLED';
    const groups = kind === 'auto' || rng.next() < 0.5 ? 1 : 2;
    const advertised = Array.from({ length: groups }, () =>
      Array.from({ length: rng.int(1, 3) }, () => pool[rng.int(0, pool.length - 1)]!),
    );
    const lead = advertised[0]![0]!;
    const unitPrice = advertised.flat().reduce((sum, l) => sum + major(l, digits), 0) / advertised.flat().length;
    const budget = Math.max(minBudget(digits), roundMoney(unitPrice * (0.6 + rng.next() * 1.9), digits));
    const defaultBid = Math.max(minBid(digits), roundMoney(unitPrice * (0.015 + rng.next() * 0.035), digits));
    const campaignId = entityId(rng);
    const startDate = addDays(STARTS_FROM, rng.int(0, 300));
    e.campaigns.set(campaignId, {
      campaignId,
      name: `${shortTitle(lead)} - ${KIND_LABEL[kind]}`,
      state,
      targetingType: kind === 'auto' ? 'AUTO' : 'MANUAL',
      startDate,
      budget: { budget, budgetType: 'DAILY' },
      dynamicBidding: { strategy: rng.pick(['LEGACY_FOR_SALES', 'AUTO_FOR_SALES', 'MANUAL']), placementBidding: [] },
    });
    ads.metrics.set(campaignId, {
      startDate,
      stops: state === 'ENABLED' ? [] : [{ from: addDays(STOPS_FROM, rng.int(0, 300)), to: null }],
      baseImpressions: rng.int(kind === 'auto' ? 600 : 150, kind === 'auto' ? 3000 : 1500),
      ctr: 0.002 + rng.next() * 0.01,
      cpcFactor: 0.55 + rng.next() * 0.4,
      cvr: 0.05 + rng.next() * 0.11,
      bid: defaultBid,
      budget,
      unitPrice,
    });
    if (kind === 'auto') {
      addCampaignNegativeKeyword(e, rng, campaignId, 'cheap', 'NEGATIVE_EXACT');
      addCampaignNegativeKeyword(e, rng, campaignId, 'diy', 'NEGATIVE_PHRASE');
    } else if (i % 2 === 0) {
      const targetId = entityId(rng);
      const expression = [{ type: 'ASIN_SAME_AS', value: competitorAsin(rng) }];
      e.campaignNegativeTargets.set(targetId, {
        targetId,
        campaignId,
        expression,
        resolvedExpression: expression,
        state: 'ENABLED',
      });
    }
    advertised.forEach((listings, g) => {
      const adGroupId = entityId(rng);
      e.adGroups.set(adGroupId, {
        adGroupId,
        campaignId,
        name: `Ad group ${g + 1}`,
        state: rng.next() < 0.1 ? 'PAUSED' : 'ENABLED',
        defaultBid,
      });
      for (const listing of listings) {
        const adId = entityId(rng);
        e.productAds.set(adId, {
          adId,
          adGroupId,
          campaignId,
          state: rng.next() < 0.1 ? 'PAUSED' : 'ENABLED',
          sku: listing.sku,
          asin: listing.asin,
        });
      }
      const parents = { adGroupId, campaignId };
      const bid = () => Math.max(minBid(digits), roundMoney(defaultBid * (0.8 + rng.next() * 0.7), digits));
      const state = () => (rng.next() < 0.12 ? 'PAUSED' : 'ENABLED');
      const noun = shortTitle(listings[0]!).split(' ').slice(-2).join(' ').toLowerCase();
      if (kind === 'keyword') {
        [noun, `${noun} set`, `best ${noun}`, `${noun} gift`].forEach((keywordText, k) => {
          const keywordId = entityId(rng);
          e.keywords.set(keywordId, {
            keywordId,
            ...parents,
            keywordText,
            matchType: MATCH_TYPES[k % MATCH_TYPES.length]!,
            state: state(),
            bid: bid(),
          });
        });
      } else {
        const clauses =
          kind === 'auto'
            ? AUTO_PREDICATES.map((type) => ({
                expressionType: 'AUTO' as const,
                expression: [{ type }],
                resolvedExpression: [{ type }],
              }))
            : [competitorAsin(rng), competitorAsin(rng)]
                .map((asin) => ({
                  expressionType: 'MANUAL' as const,
                  expression: [{ type: 'ASIN_SAME_AS', value: asin }],
                  resolvedExpression: [{ type: 'ASIN_SAME_AS', value: asin }],
                }))
                .concat([categoryClause(rng)]);
        for (const clause of clauses) {
          const targetId = entityId(rng);
          e.targets.set(targetId, { targetId, ...parents, ...clause, state: state(), bid: bid() });
        }
        const targetId = entityId(rng);
        const expression = [{ type: 'ASIN_SAME_AS', value: competitorAsin(rng) }];
        e.negativeTargets.set(targetId, {
          targetId,
          ...parents,
          expression,
          resolvedExpression: expression,
          state: 'ENABLED',
        });
      }
      if (kind !== 'product') {
        const keywordId = entityId(rng);
        e.negativeKeywords.set(keywordId, {
          keywordId,
          ...parents,
          keywordText: `free ${noun}`,
          matchType: 'NEGATIVE_PHRASE',
          state: 'ENABLED',
        });
      }
    });
  }
  return ads;
}

function categoryClause(rng: Rng) {
  const [id, name] = rng.pick(CATEGORIES);
  return {
    expressionType: 'MANUAL' as const,
    expression: [{ type: 'ASIN_CATEGORY_SAME_AS', value: id }],
    resolvedExpression: [{ type: 'ASIN_CATEGORY_SAME_AS', value: name }],
  };
}

function addCampaignNegativeKeyword(
  e: SpEntityMaps,
  rng: Rng,
  campaignId: string,
  keywordText: string,
  matchType: 'NEGATIVE_EXACT' | 'NEGATIVE_PHRASE',
) {
  const keywordId = entityId(rng);
  e.campaignNegativeKeywords.set(keywordId, { keywordId, campaignId, keywordText, matchType, state: 'ENABLED' });
}
