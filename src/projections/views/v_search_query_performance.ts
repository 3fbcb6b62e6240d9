import { completeReads } from '../observed/economics-support.js';
import { SQP_MEASURES } from '../observed/search_query.js';
import { viewCatalogue } from './catalogue.js';
import type { ViewDefinition } from './definition.js';
import catalogue from './v_search_query_performance.json' with { type: 'json' };
import { SQP_DATASET } from '../../domain/observation/datasets.js';

const described = viewCatalogue(catalogue);

const words = (name: string) =>
  name
    .replace(/_/g, ' ')
    .replace(/^total /, 'all ASINs: ')
    .replace(/^asin /, 'this ASIN: ');

export const vSearchQueryPerformance: ViewDefinition = {
  ...described,
  // the report's measures follow the catalogue's columns, in the read model's order
  columns: [
    ...described.columns,
    ...SQP_MEASURES.map(([name, kind]) => ({
      name,
      type: kind === 'rate' ? 'numeric' : 'bigint',
      unit: kind === 'count' ? 'count' : kind === 'rate' ? 'ratio 0-1' : 'minor units of currency',
      nullable: kind === 'price',
      description: words(name),
    })),
  ],
  sql: `select q.account_id, q.asin, q.search_query, q.report_period, q.start_date, q.end_date, q.marketplace_id, q.currency,
  q.search_query_score, q.search_query_volume, ${SQP_MEASURES.map(([name]) => `q.${name}`).join(', ')}
from rm.search_query_performance q
${completeReads('q', SQP_DATASET)}`,
};
