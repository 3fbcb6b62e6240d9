import type { Tool } from '../tool.js';
import { connectionStatus } from './connection_status.js';
import { describeData } from './describe_data.js';
import { getAdsSummary } from './get_ads_summary.js';
import { listAdsEntities } from './list_ads_entities.js';
import { listCampaigns } from './list_campaigns.js';
import { listKeywords } from './list_keywords.js';
import { listTargets } from './list_targets.js';
import { queryData } from './query_data.js';

/** Every tool the MCP endpoints serve, in listing order. */
export const TOOLS: readonly Tool[] = [connectionStatus, queryData, describeData, getAdsSummary, listCampaigns, listKeywords, listTargets, listAdsEntities];
