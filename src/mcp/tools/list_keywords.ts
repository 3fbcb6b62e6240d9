import { z } from 'zod';
import { SALES_NOTE, targetListInput, targetListSchema, targetRows } from '../ads.js';
import { readTool } from '../tool.js';

// Spec 4.6: the keyword subset of the targets, with figures from the daily targeting report.
export const listKeywords = readTool('list_keywords', 'List keywords', {
  description: `Sponsored Products keywords (positive; exclusions are in list_ads_entities) with their figures over whole profile-local report dates (default the trailing 30 days ending today): bid, cost, sales in integer minor units of the row currency, impressions, clicks, purchases, acos (cost / sales, null when sales is 0). bid is the keyword's own, else its ad group's default. ${SALES_NOTE} A keyword without metrics shows zeros; check \`freshness\`. order_by cost (default), sales or clicks, descending; money is ranked within each currency and the ranks interleave.`,
  input: targetListInput({
    match_type: z.enum(['exact', 'phrase', 'broad']).optional().describe('keep keywords of this match type'),
  }),
  output: targetListSchema({
    keyword_id: z.string().describe('the local keyword id (a Target in list_ads_entities)'),
    provider_keyword_id: z.string(),
    keyword: z.string().describe('the keyword text'),
    match_type: z.string().nullable().describe('exact, phrase or broad'),
  }),
  handler: (input, ctx) =>
    targetRows(ctx, input, ['keyword'], (row) => ({
      keyword_id: row.id,
      provider_keyword_id: row.provider_id,
      keyword: row.text,
      match_type: row.match_type,
    })),
});
