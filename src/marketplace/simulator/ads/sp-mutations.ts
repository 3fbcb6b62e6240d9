import { SP_RESOURCES, type SpMutationError, type SpResource } from '../../clients/ads-sp-types.js';
import { entityId, rngOf } from './seeded.js';
import { minBid, minBudget, type ProfileAds } from './sp-generate.js';
import type { AdsState, SpOperation } from './sp-state.js';

// Sponsored Products v3 create (POST /sp/<res>), update (PUT /sp/<res>) and delete
// (POST /sp/<res>/delete, which archives): each item is checked on its own and applied when
// valid, and the answer is the 207 multi-status body, item by item in request order.

type Entity = Record<string, unknown>;
type Item = Record<string, unknown>;

interface Rules {
  /** fields a create must carry */
  required: readonly string[];
  /** further fields a create may carry */
  optional: readonly string[];
  /** fields an update may set (besides the id) */
  updatable: readonly string[];
  matchTypes?: readonly string[];
}

const NEGATIVE_MATCH = ['NEGATIVE_EXACT', 'NEGATIVE_PHRASE', 'NEGATIVE_BROAD'];
const RULES: Record<SpResource, Rules> = {
  campaigns: {
    required: ['name', 'targetingType', 'state', 'budget'],
    optional: ['startDate', 'endDate', 'portfolioId', 'dynamicBidding', 'tags'],
    updatable: ['name', 'state', 'budget', 'startDate', 'endDate', 'portfolioId', 'dynamicBidding', 'tags'],
  },
  adGroups: {
    required: ['campaignId', 'name', 'state', 'defaultBid'],
    optional: [],
    updatable: ['name', 'state', 'defaultBid'],
  },
  productAds: {
    required: ['campaignId', 'adGroupId', 'state'],
    optional: ['sku', 'asin', 'customText'],
    updatable: ['state'],
  },
  keywords: {
    required: ['campaignId', 'adGroupId', 'keywordText', 'matchType', 'state'],
    optional: ['bid'],
    updatable: ['state', 'bid'],
    matchTypes: ['EXACT', 'PHRASE', 'BROAD'],
  },
  targets: {
    required: ['campaignId', 'adGroupId', 'expression', 'expressionType', 'state'],
    optional: ['bid'],
    updatable: ['state', 'bid', 'expression'],
  },
  negativeKeywords: {
    required: ['campaignId', 'adGroupId', 'keywordText', 'matchType', 'state'],
    optional: [],
    updatable: ['state'],
    matchTypes: NEGATIVE_MATCH,
  },
  negativeTargets: {
    required: ['campaignId', 'adGroupId', 'expression', 'state'],
    optional: [],
    updatable: ['state', 'expression'],
  },
  campaignNegativeKeywords: {
    required: ['campaignId', 'keywordText', 'matchType', 'state'],
    optional: [],
    updatable: ['state'],
    matchTypes: NEGATIVE_MATCH,
  },
  campaignNegativeTargets: {
    required: ['campaignId', 'expression', 'state'],
    optional: [],
    updatable: ['state', 'expression'],
  },
};

const WRITABLE_STATES = ['ENABLED', 'PAUSED', 'PROPOSED'];
const AUTO_PREDICATES = [
  'QUERY_HIGH_REL_MATCHES',
  'QUERY_BROAD_REL_MATCHES',
  'ASIN_SUBSTITUTE_RELATED',
  'ASIN_ACCESSORY_RELATED',
];

function mutationError(
  kind: string,
  reason: string,
  message: string,
  location?: string,
  extra: Record<string, unknown> = {},
): SpMutationError {
  return {
    errorType: kind,
    errorValue: { [kind]: { reason, message, ...(location ? { cause: { location } } : {}), ...extra } },
  };
}

/** An item's outcome when it is refused with one error. */
const refused = (...error: Parameters<typeof mutationError>): { errors: SpMutationError[] } => ({
  errors: [mutationError(...error)],
});

export interface MultiStatus {
  success: Array<Record<string, unknown>>;
  error: Array<{ index: number; errors: SpMutationError[] }>;
}

/** Applies a create, update or delete request's items; `items` are the body's array (or, for
 * delete, the ids of its id filter). */
export function applyMutations(
  state: AdsState,
  ads: ProfileAds,
  resource: SpResource,
  operation: SpOperation,
  items: readonly unknown[],
  representation: boolean,
): MultiStatus {
  const wire = SP_RESOURCES[resource];
  const result: MultiStatus = { success: [], error: [] };
  items.forEach((raw, index) => {
    const outcome =
      operation === 'create'
        ? create(state, ads, resource, raw, index)
        : operation === 'update'
          ? update(state, ads, resource, raw, index)
          : archive(state, ads, resource, raw, index);
    if ('errors' in outcome) {
      result.error.push({ index, errors: outcome.errors });
      return;
    }
    const { before, after } = outcome;
    const id = String(after[wire.idKey]);
    state.log({ profileId: ads.profileId, resource, operation, id, before, after: structuredClone(after) });
    outcome.then?.();
    result.success.push({ index, [wire.successIdKey]: id, ...(representation ? { [wire.successKey]: after } : {}) });
  });
  return result;
}

/** `then`: what the marketplace does in consequence, after the change itself. */
type Outcome = { errors: SpMutationError[] } | { before: Entity | null; after: Entity; then?: () => void };

const map = (ads: ProfileAds, resource: SpResource) => ads.entities[resource] as unknown as Map<string, Entity>;
const isItem = (raw: unknown): raw is Item => typeof raw === 'object' && raw !== null && !Array.isArray(raw);

/** Enumerations the marketplace reads in any case and stores upper case. */
const ENUM_FIELDS = ['state', 'targetingType', 'matchType', 'expressionType'] as const;

/**
 * What the marketplace stores of an item, as the real one does: enumerations upper case
 * ('enabled' → 'ENABLED'), bids and budgets rounded to the currency's precision (0.555 → 0.56 in
 * USD, 12.4 → 12 in JPY). A read-back then shows the stored value, not the one requested.
 */
function normalized(ads: ProfileAds, raw: Item): Item {
  const item: Item = { ...raw };
  for (const f of ENUM_FIELDS) if (typeof item[f] === 'string') item[f] = (item[f] as string).toUpperCase();
  const round = (n: unknown) => (typeof n === 'number' ? Number(n.toFixed(ads.digits)) : n);
  for (const f of ['bid', 'defaultBid']) if (item[f] !== undefined) item[f] = round(item[f]);
  const budget = item.budget as { budget?: unknown } | undefined;
  if (budget && typeof budget === 'object' && 'budget' in budget)
    item.budget = { ...budget, budget: round(budget.budget) };
  return item;
}

function create(state: AdsState, ads: ProfileAds, resource: SpResource, given: unknown, index: number): Outcome {
  if (!isItem(given))
    return refused('malformedValueError', 'PATTERN_NOT_MATCHED', 'item is not an object', `$[${index}]`);
  const raw = normalized(ads, given);
  const rules = RULES[resource];
  const missing = rules.required.filter((f) => raw[f] === undefined || raw[f] === null || raw[f] === '');
  if (missing.length)
    return {
      errors: missing.map((f) =>
        mutationError('missingValueError', 'MISSING_VALUE', `${f} is required`, `$[${index}].${f}`),
      ),
    };
  const errors = [...checkValues(ads, resource, raw, index), ...checkParents(ads, raw, index)];
  const entity: Entity = Object.fromEntries(
    [...rules.required, ...rules.optional].filter((f) => raw[f] !== undefined).map((f) => [f, raw[f]]),
  );
  const wire = SP_RESOURCES[resource];
  const id = state.newId();
  entity[wire.idKey] = id;
  if (resource === 'campaigns') {
    if (nameTaken(ads, String(raw.name), null))
      errors.push(
        mutationError('duplicateValueError', 'NAME_NOT_UNIQUE', 'a campaign with this name exists', `$[${index}].name`),
      );
    entity.startDate ??= state.today(ads);
    entity.dynamicBidding ??= { strategy: 'LEGACY_FOR_SALES', placementBidding: [] };
  }
  if (resource === 'productAds') {
    const listing = typeof raw.sku === 'string' ? state.catalog.findListing(raw.sku, ads.marketplaceId) : undefined;
    if (!listing)
      errors.push(
        mutationError(
          'otherError',
          'OTHER_ERROR',
          `sku ${String(raw.sku)} is not offered in this marketplace`,
          `$[${index}].sku`,
        ),
      );
    else entity.asin = listing.asin;
  }
  if ('expression' in entity) entity.resolvedExpression = entity.expression;
  if (errors.length) return { errors };
  // list answers show it only with includeExtendedDataFields; reconciliation finds what appeared after an attempt by it
  const at = new Date(state.now()).toISOString();
  entity.extendedData = { creationDateTime: at, lastUpdateDateTime: at };
  map(ads, resource).set(id, entity);
  if (resource === 'campaigns') startMetrics(state, ads, entity);
  const auto =
    resource === 'adGroups' && map(ads, 'campaigns').get(String(entity.campaignId))?.targetingType === 'AUTO';
  return { before: null, after: entity, ...(auto ? { then: () => addAutoTargets(state, ads, entity) } : {}) };
}

function update(state: AdsState, ads: ProfileAds, resource: SpResource, given: unknown, index: number): Outcome {
  const wire = SP_RESOURCES[resource];
  if (!isItem(given) || typeof given[wire.idKey] !== 'string')
    return refused('missingValueError', 'MISSING_VALUE', `${wire.idKey} is required`, `$[${index}].${wire.idKey}`);
  const raw = normalized(ads, given);
  const found = existing(ads, resource, String(raw[wire.idKey]), index);
  if ('errors' in found) return found;
  const errors = checkValues(ads, resource, raw, index);
  if (resource === 'campaigns' && typeof raw.name === 'string' && nameTaken(ads, raw.name, String(raw.campaignId))) {
    errors.push(
      mutationError('duplicateValueError', 'NAME_NOT_UNIQUE', 'a campaign with this name exists', `$[${index}].name`),
    );
  }
  if (errors.length) return { errors };
  const before = structuredClone(found.entity);
  for (const f of RULES[resource].updatable) if (raw[f] !== undefined) found.entity[f] = raw[f];
  if ('expression' in raw) found.entity.resolvedExpression = found.entity.expression;
  if (resource === 'campaigns') trackServing(state, ads, found.entity);
  return { before, after: found.entity };
}

function archive(state: AdsState, ads: ProfileAds, resource: SpResource, raw: unknown, index: number): Outcome {
  const found = existing(ads, resource, String(raw), index);
  if ('errors' in found) return found;
  const before = structuredClone(found.entity);
  found.entity.state = 'ARCHIVED';
  if (resource === 'campaigns') trackServing(state, ads, found.entity);
  return { before, after: found.entity };
}

function existing(
  ads: ProfileAds,
  resource: SpResource,
  id: string,
  index: number,
): { errors: SpMutationError[] } | { entity: Entity } {
  const wire = SP_RESOURCES[resource];
  const entity = map(ads, resource).get(id);
  const at = `$[${index}].${wire.idKey}`;
  const { entityType } = wire;
  if (!entity)
    return refused('entityNotFoundError', 'ENTITY_NOT_FOUND', `${entityType} ${id} not found`, at, {
      entityType,
      entityId: id,
    });
  if (entity.state === 'ARCHIVED')
    return refused('entityStateError', 'ARCHIVED_ENTITY_CANNOT_BE_MODIFIED', `${entityType} ${id} is archived`, at, {
      entityType,
    });
  return { entity };
}

function checkValues(ads: ProfileAds, resource: SpResource, item: Item, index: number): SpMutationError[] {
  const errors: SpMutationError[] = [];
  const at = (f: string) => `$[${index}].${f}`;
  const oneOf = (f: string, allowed: readonly string[]) => {
    if (item[f] !== undefined && !allowed.includes(String(item[f])))
      errors.push(
        mutationError('rangeError', 'INVALID_ENUM_VALUE', `${f} must be one of ${allowed.join(', ')}`, at(f), {
          allowed,
        }),
      );
  };
  oneOf('state', WRITABLE_STATES);
  if (resource === 'campaigns') oneOf('targetingType', ['AUTO', 'MANUAL']);
  if (resource === 'targets') oneOf('expressionType', ['MANUAL']);
  const { matchTypes } = RULES[resource];
  if (matchTypes) oneOf('matchType', matchTypes);
  const low = minBid(ads.digits);
  for (const f of ['bid', 'defaultBid']) {
    const bid = item[f];
    if (bid === undefined || (f === 'bid' && bid === null)) continue;
    if (typeof bid !== 'number' || bid < low || bid > low * 50_000) {
      errors.push(
        mutationError(
          'biddingError',
          'BID_OUT_OF_MARKET_PLACE_RANGE',
          `${f} must be between ${low} and ${low * 50_000}`,
          at(f),
          { lowerLimit: String(low), upperLimit: String(low * 50_000) },
        ),
      );
    }
  }
  if (item.budget !== undefined) {
    const budget = item.budget as { budget?: unknown; budgetType?: unknown } | null;
    const amount = budget?.budget;
    const floor = minBudget(ads.digits);
    if (typeof amount !== 'number' || budget?.budgetType !== 'DAILY')
      errors.push(
        mutationError(
          'budgetError',
          'MISSING_BUDGETING_POLICY',
          'budget needs a number budget and budgetType DAILY',
          at('budget'),
        ),
      );
    else if (amount < floor || amount > floor * 1_000_000) {
      errors.push(
        mutationError(
          'budgetError',
          amount < floor ? 'BUDGET_TOO_LOW' : 'BUDGET_TOO_HIGH',
          `budget must be between ${floor} and ${floor * 1_000_000}`,
          at('budget.budget'),
          { lowerLimit: String(floor), upperLimit: String(floor * 1_000_000) },
        ),
      );
    }
  }
  if (item.expression !== undefined) {
    const expression = item.expression;
    const valid =
      Array.isArray(expression) &&
      expression.length > 0 &&
      expression.every((p) => isItem(p) && typeof p.type === 'string');
    if (!valid)
      errors.push(
        mutationError(
          'malformedValueError',
          'PATTERN_NOT_MATCHED',
          'expression must be a non-empty list of { type, value }',
          at('expression'),
        ),
      );
    else if (expression.some((p) => AUTO_PREDICATES.includes(String((p as Item).type)))) {
      errors.push(
        mutationError(
          'rangeError',
          'NOT_IN_LIST',
          'auto-targeting predicates cannot be created manually',
          at('expression'),
        ),
      );
    }
  }
  return errors;
}

function checkParents(ads: ProfileAds, item: Item, index: number): SpMutationError[] {
  if (item.campaignId === undefined) return [];
  const campaign = map(ads, 'campaigns').get(String(item.campaignId));
  if (!campaign)
    return [
      mutationError(
        'entityNotFoundError',
        'ENTITY_NOT_FOUND',
        `campaign ${String(item.campaignId)} not found`,
        `$[${index}].campaignId`,
        { entityType: 'CAMPAIGN', entityId: String(item.campaignId) },
      ),
    ];
  if (campaign.state === 'ARCHIVED')
    return [
      mutationError(
        'parentEntityError',
        'PARENT_ENTITY_ARCHIVED',
        'the campaign is archived',
        `$[${index}].campaignId`,
      ),
    ];
  if (item.adGroupId === undefined) return [];
  const adGroup = map(ads, 'adGroups').get(String(item.adGroupId));
  if (!adGroup || adGroup.campaignId !== item.campaignId) {
    return [
      mutationError(
        'entityNotFoundError',
        'ENTITY_NOT_FOUND',
        `ad group ${String(item.adGroupId)} not found in campaign ${String(item.campaignId)}`,
        `$[${index}].adGroupId`,
        { entityType: 'AD_GROUP', entityId: String(item.adGroupId) },
      ),
    ];
  }
  if (adGroup.state === 'ARCHIVED')
    return [
      mutationError('parentEntityError', 'PARENT_ENTITY_ARCHIVED', 'the ad group is archived', `$[${index}].adGroupId`),
    ];
  return [];
}

const nameTaken = (ads: ProfileAds, name: string, except: string | null) =>
  [...map(ads, 'campaigns').values()].some((c) => c.name === name && c.campaignId !== except && c.state !== 'ARCHIVED');

/** Auto campaigns get the four auto-targeting clauses with each new ad group, as the provider does. */
function addAutoTargets(state: AdsState, ads: ProfileAds, adGroup: Entity) {
  for (const type of AUTO_PREDICATES) {
    const targetId = entityId(rngOf(state.seed, ads.profileId, 'auto-target', String(adGroup.adGroupId), type));
    const target = {
      targetId,
      adGroupId: adGroup.adGroupId,
      campaignId: adGroup.campaignId,
      expressionType: 'AUTO',
      expression: [{ type }],
      resolvedExpression: [{ type }],
      state: 'ENABLED',
    };
    map(ads, 'targets').set(targetId, target);
    state.log({
      profileId: ads.profileId,
      resource: 'targets',
      operation: 'create',
      id: targetId,
      before: null,
      after: structuredClone(target),
    });
  }
}

/** A created campaign serves from its start date, priced like the profile's listings. */
function startMetrics(state: AdsState, ads: ProfileAds, campaign: Entity) {
  const rng = rngOf(state.seed, ads.profileId, 'created-metrics', String(campaign.campaignId));
  const unitPrice = ads.pool.reduce((sum, l) => sum + l.price, 0) / Math.max(1, ads.pool.length) / 10 ** ads.digits;
  ads.metrics.set(String(campaign.campaignId), {
    startDate: String(campaign.startDate),
    stops: [],
    baseImpressions: rng.int(150, 1500),
    ctr: 0.002 + rng.next() * 0.01,
    cpcFactor: 0.55 + rng.next() * 0.4,
    cvr: 0.05 + rng.next() * 0.11,
    bid: Math.max(minBid(ads.digits), unitPrice * 0.03),
    budget: (campaign.budget as { budget: number }).budget,
    unitPrice,
  });
  trackServing(state, ads, campaign);
}

/** Pausing or archiving stops a campaign's metrics from today; enabling resumes them. */
function trackServing(state: AdsState, ads: ProfileAds, campaign: Entity) {
  const params = ads.metrics.get(String(campaign.campaignId));
  if (!params) return;
  const today = state.today(ads);
  const open = params.stops.find((s) => s.to === null);
  if (campaign.state === 'ENABLED' && open) open.to = today;
  if (campaign.state !== 'ENABLED' && !open) params.stops.push({ from: today, to: null });
}
