import { MAJOR, type Field } from '../fields.js';
import { ADVERTISING_PROFILES, CAMPAIGN, HOURLY } from './ads-entities.js';
import { COMMON } from './common.js';
import { field, maybe, money, objectAt } from './field.js';

// The three advertising-stream scopes (spec 2.12): CampaignOrPortfolio (BUDGET_USAGE),
// HourlyMetrics (SP_TRAFFIC, SP_CONVERSION) and EntityChange (the four *_CHANGE types).
// Each names the campaign the message is about; `budget` is filled on budget-usage events only.

const budget = (filled: boolean): Field[] => {
  const when = filled ? '' : '; null outside budget-usage events';
  return [
    field('budget', 'object', filled ? 'the budget-usage figures of the firing event' : 'every key null here'),
    field('budget.amount', 'number', `the budget the event measured against, not the current one${when}`, {
      nullable: !filled,
      unit: MAJOR,
    }),
    field(
      'budget.scopeType',
      'string',
      `CAMPAIGN (context.campaign is present) or PORTFOLIO (context.portfolio)${when}`,
      {
        nullable: !filled,
      },
    ),
    field('budget.eventTime', 'string', `ISO 8601${when}`, { nullable: !filled }),
    field('budget.percentage', 'number', `consumed, 0-100 (one event per 5% step)${when}`, {
      nullable: !filled,
      unit: 'percent 0-100',
    }),
  ];
};

const campaign = (description: string, optional = false): Field[] => [
  ...objectAt('campaign', description, [...CAMPAIGN, ...HOURLY], { optional }),
];

/** Portfolios are not synced: what the firing event says is all there is; the rest is absent until they are. */
const NOT_SYNCED = { optional: true } as const;
const PORTFOLIO: readonly Field[] = [
  field('id', 'string', "the marketplace's portfolio id"),
  money('budgetCap', 'its own budget cap, the budget the firing event measured against; null when none', true),
  field(
    'inBudget',
    'boolean',
    'the marketplace still considers it within budget (the firing event shows under 100% consumed); never null',
  ),
  field('name', 'string', 'name; absent: portfolios are not synced yet', NOT_SYNCED),
  field('state', 'string', 'state; absent: portfolios are not synced yet', NOT_SYNCED),
  maybe('startDate', 'string', 'ISO 8601; null when no budget; absent: portfolios are not synced yet', NOT_SYNCED),
  maybe(
    'endDate',
    'string',
    'ISO 8601; null for open-ended recurring or no budget; absent: portfolios are not synced yet',
    NOT_SYNCED,
  ),
  maybe(
    'renewalPolicy',
    'string',
    'e.g. a monthly-recurring or date-range token; null when no budget; absent: portfolios are not synced yet',
    NOT_SYNCED,
  ),
];

export const CAMPAIGN_OR_PORTFOLIO_CONTEXT: readonly Field[] = [
  ...budget(true),
  ...campaign('the campaign (scopeType CAMPAIGN only), with its hourly traffic and conversions', true),
  ...objectAt('portfolio', 'the portfolio (scopeType PORTFOLIO only, instead of campaign)', PORTFOLIO, {
    optional: true,
  }),
  ...ADVERTISING_PROFILES,
  ...COMMON,
];

export const HOURLY_METRICS_CONTEXT: readonly Field[] = [
  ...budget(false),
  ...campaign('the campaign the hour is about'),
  ...HOURLY,
  field('metrics', 'object', 'one hour of performance for one campaign; read defensively'),
  field('metrics.feed', 'string', 'sp-traffic or sp-conversion'),
  field('metrics.hour', 'string', 'the hour covered (ISO 8601), not delivery time'),
  field('metrics.rows', 'number', 'count of raw feed rows rolled up'),
  maybe('metrics.impressions', 'number', 'traffic feed only; null on conversions'),
  maybe('metrics.clicks', 'number', 'traffic feed only; null on conversions'),
  money('metrics.cost', 'spend; traffic feed only, null on conversions', true),
  maybe('metrics.conversions', 'number', 'attributed conversions (7 days); conversion feed only, null on traffic'),
  money('metrics.sales', 'attributed sales (7 days); conversion feed only, null on traffic', true),
  maybe('metrics.unitsOrdered', 'number', 'attributed units (7 days); conversion feed only, null on traffic'),
  ...ADVERTISING_PROFILES,
  ...COMMON,
];

export const ENTITY_CHANGE_CONTEXT: readonly Field[] = [
  ...budget(false),
  ...campaign('the campaign the changed entity belongs to (as synced: it may lag the change)'),
  field('change', 'object', 'the raw entity-change message, unmodified: the same keys as event (they vary by type)'),
  ...HOURLY,
  ...ADVERTISING_PROFILES,
  ...COMMON,
];
