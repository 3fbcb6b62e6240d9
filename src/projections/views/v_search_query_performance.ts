import { completeReads } from '../observed/economics-support.js';
import { SQP_MEASURES } from '../observed/search_query.js';
import type { ViewDefinition } from './definition.js';
import { accountId, count, MARKETPLACE_ID, MARKETPLACES_JOIN, column } from './shared.js';
import { SQP_DATASET } from '../../domain/observation/datasets.js';

const words = (name: string) =>
  name
    .replace(/_/g, ' ')
    .replace(/^total /, 'all ASINs: ')
    .replace(/^asin /, 'this ASIN: ');

export const vSearchQueryPerformance: ViewDefinition = {
  name: 'v_search_query_performance',
  audience: 'seller',
  grain:
    'one row per ASIN per search query per closed reporting window (report_period WEEK, MONTH or QUARTER) per marketplace',
  columns: [
    accountId('seller'),
    column('asin', 'text', false, "the seller's ASIN"),
    column('search_query', 'text', false, 'what shoppers searched'),
    column('report_period', 'text', false, 'WEEK (Sunday to Saturday), MONTH or QUARTER'),
    column('start_date', 'date', false, 'first day of the window'),
    column('end_date', 'date', false, 'last day of the window (closed: before today)'),
    MARKETPLACE_ID,
    column('currency', 'text', true, 'ISO 4217 code of the median price columns'),
    column('search_query_score', 'integer', false, "the query's rank among this ASIN's queries (1 = best)", 'rank'),
    count('search_query_volume', false, 'times shoppers searched the query in the window'),
    ...SQP_MEASURES.map(([name, kind]) => ({
      name,
      type: kind === 'rate' ? 'numeric' : 'bigint',
      unit: kind === 'count' ? 'count' : kind === 'rate' ? 'ratio 0-1' : 'minor units of currency',
      nullable: kind === 'price',
      description: words(name),
    })),
  ],
  freshness:
    'Read once per closed window (weeks, months, quarters of the last year) from the brand analytics report; a window still open has no rows.',
  joins: [
    {
      view: 'v_seller_economics',
      on: 'account_id, marketplace_id, asin, date between start_date and end_date',
      fanOut: 'every query row of the ASIN meets every SKU and day of the window',
    },
    MARKETPLACES_JOIN,
  ],
  warnings: [
    'Summing across periods, or across more than one window of one period, multiplies counts: filter report_period and pick windows that do not overlap.',
    'total_* describes the whole query across all ASINs; asin_* describes this ASIN: never sum total_* over ASINs.',
    "Covers the marketplace's 18 best-selling ASINs of the last year.",
  ],
  dateColumn: 'start_date',
  sql: `select q.account_id, q.asin, q.search_query, q.report_period, q.start_date, q.end_date, q.marketplace_id, q.currency,
  q.search_query_score, q.search_query_volume, ${SQP_MEASURES.map(([name]) => `q.${name}`).join(', ')}
from rm.search_query_performance q
${completeReads('q', SQP_DATASET)}`,
};
