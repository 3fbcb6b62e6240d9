import type { Field } from '../fields.js';
import { receiptsAt } from './common.js';
import { field, fieldTables, listAt, maybe, targetType } from './field.js';
import tables from './ads-entities.json' with { type: 'json' };

// The advertising entities as contexts show them (spec 2.7, 2.8): each is a mutation target by
// its explicit `type` and local `id`; `data` is the native entity (original keys, values, units).

const T = fieldTables(tables);

/** Ads have no rollup: no per-ad report is synced. */
const NO_METRICS30: readonly Field[] = [maybe('metrics30', 'object', 'null: no per-ad report is synced')];

/** What every entity carries: identity as a mutation target, currency, native data, receipts. */
const entity = (
  type: string,
  idNote = 'local id (the mutation target id)',
  metrics: readonly Field[] = T.metrics30,
): Field[] => [
  targetType(type),
  type === 'Campaign'
    ? maybe('id', 'string', `${idNote}; null while the ads sync has not read the campaign (changes to it are dropped)`)
    : field('id', 'string', idNote),
  ...T.entity,
  ...receiptsAt(
    'mutations',
    'its queued, submitting and uncertain receipts plus the latest terminal one (acceptance is not an observed result)',
  ),
  ...metrics,
];

export const HOURLY: readonly Field[] = T.hourly;

/** Active coupons and promotions (spec 2.6): null = unknown, [] = synced and none. */
export const deals = (scope: string): Field[] => [
  maybe(
    'deals',
    'array',
    `coupons and promotions active now covering ${scope}; null until both reports synced; each entry is the report's own entry (its keys unchanged, products trimmed to the ASINs here) with the keys below added`,
    { open: true },
  ),
  ...T.deals,
];

export const AD_GROUP: readonly Field[] = [...entity('AdGroup'), ...T.adGroup];

export const AD: readonly Field[] = [...entity('Ad', undefined, NO_METRICS30), ...T.inAdGroup, ...T.ad];

export const TARGET: readonly Field[] = [...entity('Target'), ...T.inAdGroup, ...T.target];

export const NEGATIVE_TARGET: readonly Field[] = [...entity('Target', undefined, []), ...T.negativeTarget];

const CAMPAIGN_OWN: readonly Field[] = [...entity('Campaign'), ...T.campaign];

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
  ...T.advertisingProfiles,
  ...receiptsAt(
    'advertisingProfiles[].mutations',
    'campaign creations: every queued, submitting and uncertain one plus the latest settled receipt of each',
  ),
];
