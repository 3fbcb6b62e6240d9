import type { Tool } from '../tool.js';
import { connectionStatus } from './connection_status.js';
import { describeData } from './describe_data.js';
import { getSalesSummary } from './get_sales_summary.js';
import { listSalesByListing } from './list_sales_by_listing.js';
import { queryData } from './query_data.js';
import { getMutation } from './get_mutation.js';
import { getMutationSchema } from './get_mutation_schema.js';
import { listMutations } from './list_mutations.js';
import { patchListing } from './patch_listing.js';
import { queueMutations } from './queue_mutations.js';

/** Every tool the MCP endpoints serve, in listing order. */
export const TOOLS: readonly Tool[] = [
  connectionStatus,
  getSalesSummary,
  listSalesByListing,
  queryData,
  describeData,
  getMutation,
  listMutations,
  getMutationSchema,
  queueMutations,
  patchListing,
];
