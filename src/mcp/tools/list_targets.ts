import { z } from 'zod';
import { SALES_NOTE, targetCategorySchema, targetListInput, targetListSchema, targetRows } from '../ads.js';
import { readTool } from '../tool.js';

// Spec 4.6: every positive target: keywords, the auto-targeting buckets, product and category targets.
export const listTargets = readTool('list_targets', 'List targets', {
  description: `Sponsored Products targets (positive; exclusions are in list_ads_entities) with their figures over whole profile-local report dates (default the trailing 30 days ending today). target_type is keyword, auto (the buckets close-match, loose-match, substitutes, complements), product (asin="…") or product_category (category="…"); text is the keyword or the expression. bid (the target's own, else its ad group's default), cost and sales are integer minor units of the row currency; acos = cost / sales, null when sales is 0. ${SALES_NOTE} A target without metrics shows zeros; check \`freshness\`. order_by cost (default), sales or clicks, descending; money is ranked within each currency and the ranks interleave.`,
  input: targetListInput({
    target_type: targetCategorySchema.optional().describe('keep targets of this type'),
  }),
  output: targetListSchema({
    target_id: z.string().describe('the local target id (a Target in list_ads_entities)'),
    provider_target_id: z.string(),
    target_type: targetCategorySchema.describe(
      'keyword, auto (close-match, loose-match, substitutes, complements), product or product_category',
    ),
    text: z.string().describe('the keyword, or the expression (asin="…", category="…", an auto bucket)'),
    match_type: z.string().nullable().describe('exact, phrase or broad for keywords; null for the others'),
  }),
  handler: (input, ctx) =>
    targetRows(ctx, input, input.target_type && [input.target_type], (row) => ({
      target_id: row.id,
      provider_target_id: row.provider_id,
      target_type: row.category,
      text: row.text,
      match_type: row.match_type,
    })),
});
