import type { Tool } from '../tool.js';
import { connectionStatus } from './connection_status.js';
import { listStreamsTool } from './list_streams.js';
import { describeData } from './describe_data.js';
import { searchAmazonOperations } from './search_amazon_operations.js';
import { getAmazonOperation } from './get_amazon_operation.js';
import { describeStreamType } from './describe_stream_type.js';
import { getEvent } from './get_event.js';
import { listEvents } from './list_events.js';
import { getSalesSummary } from './get_sales_summary.js';
import { listSalesByListing } from './list_sales_by_listing.js';
import { getProductTypeSchema } from './get_product_type_schema.js';
import { listListings } from './list_listings.js';
import { getAdsSummary } from './get_ads_summary.js';
import { listAdsEntities } from './list_ads_entities.js';
import { listCampaigns } from './list_campaigns.js';
import { listKeywords } from './list_keywords.js';
import { listTargets } from './list_targets.js';
import { queryData } from './query_data.js';
import { getMutation } from './get_mutation.js';
import { getMutationSchema } from './get_mutation_schema.js';
import { listMutations } from './list_mutations.js';
import { patchListing } from './patch_listing.js';
import { queueMutations } from './queue_mutations.js';
import { revertMutationsTool } from './revert_mutations.js';
import { updateListing } from './update_listing.js';
import { createAutomationTool } from './create_automation.js';
import { updateAutomationTool } from './update_automation.js';
import { duplicateAutomationTool } from './duplicate_automation.js';
import { archiveAutomationTool } from './archive_automation.js';
import { getAutomationTool } from './get_automation.js';
import { listAutomationsTool } from './list_automations.js';
import { listAutomationActionsTool } from './list_automation_actions.js';
import { runAutomationTool } from './run_automation.js';
import { backtestAutomationTool } from './backtest_automation.js';
import { reportBug } from './report_bug.js';
import { suggestIdea } from './suggest_idea.js';
import { readAmazonOperation } from './read_amazon_operation.js';
import { requestReportTool } from './request_report.js';
import { getOperationResult } from './get_operation_result.js';

/** Every tool the MCP endpoints serve, in listing order. */
export const TOOLS: readonly Tool[] = [
  connectionStatus,
  listStreamsTool,
  listEvents,
  getEvent,
  describeStreamType,
  listListings,
  getProductTypeSchema,
  getSalesSummary,
  listSalesByListing,
  getAdsSummary,
  listCampaigns,
  listKeywords,
  listTargets,
  listAdsEntities,
  queryData,
  describeData,
  searchAmazonOperations,
  getAmazonOperation,
  getMutation,
  listMutations,
  getMutationSchema,
  queueMutations,
  revertMutationsTool,
  patchListing,
  updateListing,
  createAutomationTool,
  updateAutomationTool,
  duplicateAutomationTool,
  archiveAutomationTool,
  getAutomationTool,
  listAutomationsTool,
  listAutomationActionsTool,
  runAutomationTool,
  backtestAutomationTool,
  reportBug,
  suggestIdea,
  readAmazonOperation,
  requestReportTool,
  getOperationResult,
];
