import { MAJOR, type Field } from '../fields.js';
import { receiptsAt } from './common.js';
import { field, listAt, maybe, money, targetType } from './field.js';

// The advertising entities as contexts show them (spec 2.7, 2.8): each is a mutation target by
// its explicit `type` and local `id`; `data` is the native entity (original keys, values, units).

const decimal = (path: string, description: string, nullable = false): Field =>
  field(path, 'string', `${description}; a decimal string (use parseFloat)`, { nullable, unit: MAJOR });

const METRICS30: readonly Field[] = [
  field('metrics30', 'object', 'trailing 30 days'),
  money('metrics30.cost', 'spend'),
  money('metrics30.sales', 'attributed sales'),
  maybe('metrics30.acos', 'number', 'cost / sales; null when sales is 0'),
  maybe('metrics30.roas', 'number', 'sales / cost; null when cost is 0'),
  field('metrics30.impressions', 'number', 'count'),
  field('metrics30.clicks', 'number', 'count'),
  field('metrics30.orders', 'number', 'attributed conversions (7 days), count'),
];

/** Ads have no rollup: no per-ad report is synced. */
const NO_METRICS30: readonly Field[] = [maybe('metrics30', 'object', 'null: no per-ad report is synced')];

/** What every entity carries: identity as a mutation target, currency, native data, receipts. */
const entity = (
  type: string,
  idNote = 'local id (the mutation target id)',
  metrics: readonly Field[] = METRICS30,
): Field[] => [
  targetType(type),
  type === 'Campaign'
    ? maybe('id', 'string', `${idNote}; null while the ads sync has not read the campaign (changes to it are dropped)`)
    : field('id', 'string', idNote),
  field('profileId', 'string', 'local id of the advertising profile'),
  maybe('providerProfileId', 'number', "the marketplace's profile id"),
  field('currency', 'string', 'the profile currency of every bid and budget here'),
  field('data', 'object', 'the native entity: original keys, values and units (writable fields: get_mutation_schema)'),
  ...receiptsAt(
    'mutations',
    'its queued, submitting and uncertain receipts plus the latest terminal one (acceptance is not an observed result)',
  ),
  ...metrics,
];

export const HOURLY: readonly Field[] = [
  field('hourlyTraffic', 'array', "the campaign's hours of traffic (Marketing Stream), oldest first"),
  field('hourlyTraffic[].hour', 'string', 'start of the hour (ISO 8601 UTC)'),
  field('hourlyTraffic[].impressions', 'number', 'count'),
  field('hourlyTraffic[].clicks', 'number', 'count'),
  money('hourlyTraffic[].cost', 'spend in the hour'),
  field('hourlyConversions', 'array', "the campaign's hours of conversions (Marketing Stream), oldest first"),
  field('hourlyConversions[].hour', 'string', 'start of the hour (ISO 8601 UTC)'),
  field('hourlyConversions[].conversions', 'number', 'attributed conversions (7 days), count'),
  money('hourlyConversions[].sales', 'attributed sales (7 days)'),
  field('hourlyConversions[].unitsOrdered', 'number', 'attributed units (7 days), count'),
];

/** Active coupons and promotions (spec 2.6): null = unknown, [] = synced and none. */
export const deals = (scope: string): Field[] => [
  maybe(
    'deals',
    'array',
    `coupons and promotions active now covering ${scope}; null until both reports synced; each entry is the report's own entry (its keys unchanged, products trimmed to the ASINs here) with the keys below added`,
    { open: true },
  ),
  field('deals[].kind', 'string', 'coupon or promotion: which report the entry comes from'),
  field('deals[].startsAt', 'string', 'ISO 8601 UTC; active while startsAt <= now < endsAt'),
  field('deals[].endsAt', 'string', 'ISO 8601 UTC; the marketplace may end a deal earlier'),
  field('deals[].reportedAt', 'string', "when this deal's totals were last refreshed (ISO 8601 UTC)"),
  maybe(
    'deals[].status',
    'string',
    'as the report says (dates alone do not show cancellation); null when the report states none (coupons)',
  ),
  maybe(
    'dealsReportedAt',
    'string',
    "the older of the two reports' latest downloads (ISO 8601); null while deals is null",
  ),
];

export const AD_GROUP: readonly Field[] = [
  ...entity('AdGroup'),
  field('campaignId', 'string', 'local id of the parent campaign'),
  field('name', 'string', 'name'),
  field('state', 'string', 'ENABLED, PAUSED or ARCHIVED'),
  decimal('defaultBid', 'default bid, e.g. "0.75"'),
  field('asinCount', 'number', 'distinct advertised ASINs in the group'),
];

/** Where an ad or a positive target sits, and its state. */
const IN_AD_GROUP: readonly Field[] = [
  field('campaignId', 'string', 'local id of the campaign'),
  field('adGroupId', 'string', 'local id of the ad group'),
  field('state', 'string', 'ENABLED, PAUSED or ARCHIVED'),
];

export const AD: readonly Field[] = [
  ...entity('Ad', undefined, NO_METRICS30),
  ...IN_AD_GROUP,
  maybe('asin', 'string', 'the advertised ASIN'),
  maybe('sku', 'string', 'the advertised SKU (sellers)'),
];

export const TARGET: readonly Field[] = [
  ...entity('Target'),
  ...IN_AD_GROUP,
  decimal('bid', 'bid', true),
  field('category', 'string', 'keyword, auto, product or product_category'),
  field('text', 'string', 'the keyword or targeting expression (expression in the ads API)'),
  maybe('matchType', 'string', 'keywords: EXACT, PHRASE or BROAD; null otherwise'),
];

export const NEGATIVE_TARGET: readonly Field[] = [
  ...entity('Target', undefined, []),
  field('level', 'string', 'AD_GROUP or CAMPAIGN'),
  field('campaignId', 'string', 'local id of the campaign (every exclusion has one)'),
  maybe('adGroupId', 'string', 'local id of the ad group; null at campaign level'),
  field('state', 'string', 'ENABLED or ARCHIVED'),
  field('category', 'string', 'keyword, product or product_category'),
  field('text', 'string', 'the excluded expression'),
];

/** What only the ads sync knows of a campaign: null until it has read the campaign. */
const UNSYNCED = 'null until the ads sync has read the campaign';

const CAMPAIGN_OWN: readonly Field[] = [
  ...entity('Campaign'),
  maybe('name', 'string', `name; ${UNSYNCED}`),
  maybe('state', 'string', `ENABLED, PAUSED or ARCHIVED; ${UNSYNCED}`),
  decimal('dailyBudget', `daily budget, e.g. "50.0"; ${UNSYNCED}`, true),
  field('asinCount', 'number', 'distinct advertised ASINs in the campaign'),
];

/** The children lists a campaign or a listing carries. */
export const CHILDREN: readonly Field[] = [
  ...listAt('adGroups', 'ad groups', AD_GROUP),
  ...listAt('ads', 'product ads', AD),
  ...listAt('targets', 'positive targets (keywords and targeting clauses)', TARGET),
  ...listAt('negativeTargets', 'exclusions at ad group or campaign level; no bid, no metrics30', NEGATIVE_TARGET),
];

/** A campaign with its children and deals, as `context.campaign` and `context.campaigns[]` show it. */
export const CAMPAIGN: readonly Field[] = [...CAMPAIGN_OWN, ...CHILDREN, ...deals('any ASIN the campaign advertises')];

/** A campaign inside a listing's lists (its children are the listing's own lists). */
export const CAMPAIGN_IN_LISTING: readonly Field[] = CAMPAIGN_OWN;

export const ADVERTISING_PROFILES: readonly Field[] = [
  field(
    'advertisingProfiles',
    'array',
    "the account's advertising profiles in the marketplace; [] without an ads connection there",
  ),
  field('advertisingProfiles[].type', 'string', '"AdvertisingProfile": the target of create_campaign'),
  field('advertisingProfiles[].id', 'string', 'local id'),
  field('advertisingProfiles[].providerProfileId', 'number', "the marketplace's profile id"),
  field('advertisingProfiles[].country', 'string', "two letters; a new campaign's countries may name only this"),
  field('advertisingProfiles[].currency', 'string', 'currency of every budget and bid under the profile'),
  ...receiptsAt(
    'advertisingProfiles[].mutations',
    'campaign creations: every queued, submitting and uncertain one plus the latest settled receipt of each',
  ),
];
