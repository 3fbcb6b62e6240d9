import { minorUnits } from './economics-support.js';
import { SP_ENTITY_DATASETS } from '../../domain/observation/datasets.js';
import { adsEntityId, type SpTargetKind } from '../../domain/observation/ids.js';

// Observed Sponsored Products rows (as the provider sent them) as read-model rows: local ids,
// typed columns with money in minor units of the profile currency, and the native entity,
// unchanged, in `data`. A row missing what identifies it is skipped rather than guessed.

type Raw = Record<string, unknown>;
export type Row = Record<string, unknown>;

/** The profile a page belongs to, as the accounts events described it (null until they did). */
export interface ProfileContext {
  account_id: string;
  provider_profile_id: string;
  profile_id: string | null;
  marketplace_id: string | null;
  currency: string | null;
}

const str = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Raw => (typeof v === 'object' && v !== null ? (v as Raw) : {});
const money = (v: unknown, currency: string | null): number | null =>
  num(v) === null || currency === null ? null : minorUnits(v as number, currency);
const lower = (v: unknown): string | null => str(v)?.toLowerCase() ?? null;

function common(ctx: ProfileContext, raw: Raw) {
  return {
    profile_id: ctx.profile_id,
    provider_profile_id: ctx.provider_profile_id,
    marketplace_id: ctx.marketplace_id,
    currency: ctx.currency,
    data: JSON.stringify(raw),
  };
}

function parents(ctx: ProfileContext, raw: Raw) {
  const campaign = str(raw.campaignId);
  const adGroup = str(raw.adGroupId);
  return {
    campaign_id: campaign && adsEntityId('campaign', ctx.account_id, ctx.provider_profile_id, campaign),
    provider_campaign_id: campaign,
    ad_group_id: adGroup && adsEntityId('ad_group', ctx.account_id, ctx.provider_profile_id, adGroup),
    provider_ad_group_id: adGroup,
  };
}

export function campaignRow(raw: Raw, ctx: ProfileContext): Row | null {
  const id = str(raw.campaignId);
  if (!id || !str(raw.name) || !str(raw.state)) return null;
  const budget = obj(raw.budget);
  return {
    id: adsEntityId('campaign', ctx.account_id, ctx.provider_profile_id, id),
    provider_id: id,
    name: raw.name,
    state: raw.state,
    targeting_type: str(raw.targetingType),
    budget_amount: money(budget.budget, ctx.currency),
    budget_type: str(budget.budgetType),
    start_date: str(raw.startDate),
    end_date: str(raw.endDate),
    ...common(ctx, raw),
  };
}

export function adGroupRow(raw: Raw, ctx: ProfileContext): Row | null {
  const id = str(raw.adGroupId);
  if (!id || !str(raw.campaignId) || !str(raw.state)) return null;
  const { ad_group_id: _self, provider_ad_group_id: _same, ...parent } = parents(ctx, raw);
  return {
    id: adsEntityId('ad_group', ctx.account_id, ctx.provider_profile_id, id),
    provider_id: id,
    ...parent,
    name: str(raw.name),
    state: raw.state,
    default_bid: money(raw.defaultBid, ctx.currency),
    ...common(ctx, raw),
  };
}

export function productAdRow(raw: Raw, ctx: ProfileContext): Row | null {
  const id = str(raw.adId);
  if (!id || !str(raw.campaignId) || !str(raw.adGroupId) || !str(raw.state)) return null;
  const { currency: _none, ...rest } = common(ctx, raw);
  return {
    id: adsEntityId('product_ad', ctx.account_id, ctx.provider_profile_id, id),
    provider_id: id,
    ...parents(ctx, raw),
    asin: str(raw.asin),
    sku: str(raw.sku),
    state: raw.state,
    ...rest,
  };
}

/** The UI's names for the four auto-targeting buckets. */
const AUTO_BUCKETS: Readonly<Record<string, string>> = {
  QUERY_HIGH_REL_MATCHES: 'close-match',
  QUERY_BROAD_REL_MATCHES: 'loose-match',
  ASIN_SUBSTITUTE_RELATED: 'substitutes',
  ASIN_ACCESSORY_RELATED: 'complements',
};
const PRODUCT_PREDICATES = ['ASIN_SAME_AS', 'ASIN_EXPANDED_FROM'];

type Predicate = { type?: unknown; value?: unknown };

/** `asin="B0…"`, `category="Kitchen" brand="Acme"`, or an auto bucket's name; resolved values when given. */
function expressionText(expression: Predicate[]): string {
  return expression
    .map((p) => {
      const type = String(p.type);
      if (AUTO_BUCKETS[type]) return AUTO_BUCKETS[type];
      const key =
        type === 'ASIN_SAME_AS'
          ? 'asin'
          : type
              .replace(/^ASIN_/, '')
              .replace(/_SAME_AS$/, '')
              .toLowerCase();
      return p.value === undefined ? key : `${key}="${String(p.value)}"`;
    })
    .join(' ');
}

/** A target's category (spec 2.8), the `category` column. */
export const TARGET_CATEGORIES = ['keyword', 'auto', 'product', 'product_category'] as const;
export type TargetCategory = (typeof TARGET_CATEGORIES)[number];

function targetingColumns(raw: Raw): { category: TargetCategory; text: string } {
  const resolved =
    Array.isArray(raw.resolvedExpression) && raw.resolvedExpression.length ? raw.resolvedExpression : raw.expression;
  const expression = (Array.isArray(resolved) ? resolved : []) as Predicate[];
  const types = expression.map((p) => String(p.type));
  const category =
    raw.expressionType === 'AUTO' || types.some((t) => AUTO_BUCKETS[t])
      ? 'auto'
      : types.some((t) => PRODUCT_PREDICATES.includes(t))
        ? 'product'
        : types.includes('KEYWORD_GROUP_SAME_AS')
          ? 'keyword'
          : 'product_category';
  return { category, text: expressionText(expression) };
}

/** How each targeting dataset fills the shared targets table (spec 2.8: positives and exclusions). */
const TARGET_KINDS: Readonly<
  Record<
    string,
    { kind: SpTargetKind; idKey: string; negative: boolean; level: 'AD_GROUP' | 'CAMPAIGN'; keyword: boolean }
  >
> = {
  [SP_ENTITY_DATASETS.keywords]: {
    kind: 'keyword',
    idKey: 'keywordId',
    negative: false,
    level: 'AD_GROUP',
    keyword: true,
  },
  [SP_ENTITY_DATASETS.targets]: {
    kind: 'target',
    idKey: 'targetId',
    negative: false,
    level: 'AD_GROUP',
    keyword: false,
  },
  [SP_ENTITY_DATASETS.negativeKeywords]: {
    kind: 'negative_keyword',
    idKey: 'keywordId',
    negative: true,
    level: 'AD_GROUP',
    keyword: true,
  },
  [SP_ENTITY_DATASETS.negativeTargets]: {
    kind: 'negative_target',
    idKey: 'targetId',
    negative: true,
    level: 'AD_GROUP',
    keyword: false,
  },
  [SP_ENTITY_DATASETS.campaignNegativeKeywords]: {
    kind: 'campaign_negative_keyword',
    idKey: 'keywordId',
    negative: true,
    level: 'CAMPAIGN',
    keyword: true,
  },
  [SP_ENTITY_DATASETS.campaignNegativeTargets]: {
    kind: 'campaign_negative_target',
    idKey: 'targetId',
    negative: true,
    level: 'CAMPAIGN',
    keyword: false,
  },
};

export const TARGET_DATASETS = Object.keys(TARGET_KINDS);

export function targetRow(dataset: string, raw: Raw, ctx: ProfileContext): Row | null {
  const how = TARGET_KINDS[dataset];
  const id = how && str(raw[how.idKey]);
  if (!how || !id || !str(raw.campaignId) || !str(raw.state)) return null;
  if (how.level === 'AD_GROUP' && !str(raw.adGroupId)) return null;
  const { category, text } = how.keyword
    ? { category: 'keyword', text: str(raw.keywordText) ?? '' }
    : targetingColumns(raw);
  return {
    id: adsEntityId(how.kind, ctx.account_id, ctx.provider_profile_id, id),
    provider_id: id,
    kind: how.kind,
    ...parents(ctx, raw),
    negative: how.negative,
    level: how.level,
    category,
    text,
    match_type: how.keyword ? lower(raw.matchType) : null,
    state: raw.state,
    // exclusions carry no bid; a positive target without one bids its ad group's default
    bid: how.negative ? null : money(raw.bid, ctx.currency),
    ...common(ctx, raw),
  };
}

const count = (v: unknown) => Math.round(num(v) ?? 0);

/** The figures both daily reports carry. */
function dailyMetrics(raw: Raw, ctx: ProfileContext) {
  return {
    impressions: count(raw.impressions),
    clicks: count(raw.clicks),
    cost: money(raw.cost ?? 0, ctx.currency),
    attributed_sales_7d: money(raw.sales7d ?? 0, ctx.currency),
    purchases_7d: count(raw.purchases7d),
  };
}

/** A daily spCampaigns report row (ids are numbers there, strings in the entity resources). */
export function campaignDailyRow(raw: Raw, ctx: ProfileContext): Row | null {
  const campaign = str(raw.campaignId);
  const date = str(raw.date);
  if (!campaign || !date) return null;
  return {
    campaign_id: adsEntityId('campaign', ctx.account_id, ctx.provider_profile_id, campaign),
    provider_campaign_id: campaign,
    report_date: date,
    campaign_name: str(raw.campaignName),
    campaign_status: str(raw.campaignStatus),
    campaign_budget_amount: money(raw.campaignBudgetAmount, ctx.currency),
    ...dailyMetrics(raw, ctx),
    ...common(ctx, raw),
  };
}

const KEYWORD_TYPES = ['BROAD', 'PHRASE', 'EXACT'];

/** A daily spTargeting report row: `keywordId` names a keyword or, by its keywordType, a targeting clause. */
export function targetingDailyRow(raw: Raw, ctx: ProfileContext): Row | null {
  const id = str(raw.keywordId);
  const date = str(raw.date);
  if (!id || !date || !str(raw.campaignId) || !str(raw.adGroupId)) return null;
  const kind = KEYWORD_TYPES.includes(String(raw.keywordType).toUpperCase()) ? 'keyword' : 'target';
  return {
    target_id: adsEntityId(kind, ctx.account_id, ctx.provider_profile_id, id),
    provider_target_id: id,
    ...parents(ctx, raw),
    report_date: date,
    targeting: str(raw.targeting),
    keyword_type: str(raw.keywordType),
    ...dailyMetrics(raw, ctx),
    ...common(ctx, raw),
  };
}
