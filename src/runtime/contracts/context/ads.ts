import { MAJOR, type Field } from '../fields.js';
import { ADVERTISING_PROFILES, CAMPAIGN, HOURLY } from './ads-entities.js';
import { COMMON } from './common.js';
import { field, fieldTables, objectAt } from './field.js';
import tables from './ads.json' with { type: 'json' };

// The three advertising-stream scopes (spec 2.12): CampaignOrPortfolio (BUDGET_USAGE),
// HourlyMetrics (SP_TRAFFIC, SP_CONVERSION) and EntityChange (the four *_CHANGE types).
// Each names the campaign the message is about; `budget` is filled on budget-usage events only.

const T = fieldTables(tables);

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

export const CAMPAIGN_OR_PORTFOLIO_CONTEXT: readonly Field[] = [
  ...budget(true),
  ...campaign('the campaign (scopeType CAMPAIGN only), with its hourly traffic and conversions', true),
  // portfolios are not synced: what the firing event says is all there is, the rest absent until they are
  ...objectAt('portfolio', 'the portfolio (scopeType PORTFOLIO only, instead of campaign)', T.portfolio, {
    optional: true,
  }),
  ...ADVERTISING_PROFILES,
  ...COMMON,
];

export const HOURLY_METRICS_CONTEXT: readonly Field[] = [
  ...budget(false),
  ...campaign('the campaign the hour is about'),
  ...HOURLY,
  ...T.metrics,
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
