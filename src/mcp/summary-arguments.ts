import { z } from 'zod';
import { accountArgument } from './accounts.js';
import { marketplaceIdArgument } from './marketplace-argument.js';
import { sinceArgument, untilArgument } from './window.js';

/** The arguments of get_ads_summary and get_sales_summary; each says what `previous` holds. */
export const summaryArguments = (previous: string) => ({
  since: sinceArgument,
  until: untilArgument,
  marketplace_id: marketplaceIdArgument,
  compare_to_previous: z.boolean().default(false).describe(previous),
  account: accountArgument,
});
