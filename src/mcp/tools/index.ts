import type { Tool } from '../tool.js';
import { connectionStatus } from './connection_status.js';
import { describeData } from './describe_data.js';
import { getProductTypeSchema } from './get_product_type_schema.js';
import { listListings } from './list_listings.js';
import { queryData } from './query_data.js';

/** Every tool the MCP endpoints serve, in listing order. */
export const TOOLS: readonly Tool[] = [connectionStatus, queryData, describeData, listListings, getProductTypeSchema];
