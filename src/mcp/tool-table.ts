import type { Endpoint } from './tool.js';

// Spec 4.1 to 4.10 as one table: every tool of the interface with its kind, its availability and
// its parameters written as the spec writes them (`name*` is required), and whether this service
// serves it yet. Which tools a caller is shown, and may call, is read from here; a test holds
// every served tool's input schema to its row, and the rows to the spec.

/** Spec 4.1's availability restrictions; none is "everywhere". */
export type Restriction = 'simulated on demo' | 'not on demo' | 'not for vendor-only users';

export interface ToolEntry {
  name: string;
  kind: 'read' | 'write';
  availability: readonly Restriction[];
  /** the section of spec 4 that lists the parameters */
  section: string;
  /** as the spec lists them: `name*` is required */
  params: readonly string[];
  served: boolean;
  /** set on a tool beyond spec 4, saying why it is served */
  extension?: string;
}

const SIMULATED = ['simulated on demo'] as const;
const NOT_ON_DEMO = ['not on demo'] as const;
const SELLER = ['not for vendor-only users'] as const;
const SELLER_WRITE = ['not for vendor-only users', 'simulated on demo'] as const;

export const TOOL_TABLE: readonly ToolEntry[] = [
  {
    name: 'backtest_automation',
    kind: 'read',
    availability: NOT_ON_DEMO,
    section: '4.4',
    params: ['automation_id', 'version', 'code', 'stream_type', 'since', 'until', 'backtest_id', 'cancel'],
    served: true,
    extension:
      'replays an automation over the recorded events of its type with the context as it was then; records only its own backtest (docs/decisions/120-backtests.md)',
  },
  {
    name: 'archive_automation',
    kind: 'write',
    availability: SIMULATED,
    section: '4.4',
    params: ['automation_id*'],
    served: true,
  },
  { name: 'connection_status', kind: 'read', availability: [], section: '4.3', params: [], served: true },
  {
    name: 'create_automation',
    kind: 'write',
    availability: SIMULATED,
    section: '4.4',
    params: ['stream_type*', 'code', 'operation_dependencies', 'account'],
    served: true,
  },
  {
    name: 'describe_data',
    kind: 'read',
    availability: [],
    section: '4.7',
    params: ['view', 'coverage', 'account'],
    served: true,
  },
  {
    name: 'describe_stream_type',
    kind: 'read',
    availability: [],
    section: '4.3',
    params: ['stream_type*', 'account'],
    served: true,
  },
  {
    name: 'duplicate_automation',
    kind: 'write',
    availability: SIMULATED,
    section: '4.4',
    params: ['automation_id*'],
    served: true,
  },
  {
    name: 'get_ads_summary',
    kind: 'read',
    availability: [],
    section: '4.6',
    params: ['since', 'until', 'marketplace_id', 'compare_to_previous', 'account'],
    served: true,
  },
  {
    name: 'get_amazon_operation',
    kind: 'read',
    availability: [],
    section: '4.9',
    params: ['operation*', 'direction', 'status', 'media_type', 'account'],
    served: true,
  },
  { name: 'get_automation', kind: 'read', availability: [], section: '4.4', params: ['automation_id*'], served: true },
  { name: 'get_event', kind: 'read', availability: [], section: '4.3', params: ['event_id*'], served: true },
  { name: 'get_mutation', kind: 'read', availability: [], section: '4.8', params: ['id*'], served: true },
  {
    name: 'get_mutation_schema',
    kind: 'read',
    availability: [],
    section: '4.8',
    params: ['target_type*', 'action*'],
    served: true,
  },
  {
    name: 'get_operation_result',
    kind: 'read',
    availability: NOT_ON_DEMO,
    section: '4.9',
    params: ['mutation_id*', 'cursor', 'limit', 'refresh'],
    served: true,
  },
  {
    name: 'get_product_type_schema',
    kind: 'read',
    availability: NOT_ON_DEMO,
    section: '4.5',
    params: ['product_type*', 'marketplace_id', 'account'],
    served: true,
  },
  {
    name: 'get_sales_summary',
    kind: 'read',
    availability: SELLER,
    section: '4.6',
    params: ['since', 'until', 'marketplace_id', 'compare_to_previous', 'account'],
    served: true,
  },
  {
    name: 'list_ads_entities',
    kind: 'read',
    availability: [],
    section: '4.6',
    params: ['target_type*', 'campaign_id', 'account', 'limit'],
    served: true,
  },
  {
    name: 'list_automation_actions',
    kind: 'read',
    availability: [],
    section: '4.4',
    params: ['automation_id', 'status', 'since', 'limit', 'account'],
    served: true,
  },
  {
    name: 'list_automations',
    kind: 'read',
    availability: [],
    section: '4.4',
    params: ['stream_type', 'include_archived', 'account'],
    served: true,
  },
  {
    name: 'list_campaigns',
    kind: 'read',
    availability: [],
    section: '4.6',
    params: ['state', 'name', 'asin', 'marketplace_id', 'since', 'until', 'order_by', 'limit', 'account'],
    served: true,
  },
  {
    name: 'list_events',
    kind: 'read',
    availability: [],
    section: '4.3',
    params: ['stream_type', 'since', 'until', 'asin', 'sku', 'marketplace_id', 'limit', 'account'],
    served: true,
  },
  {
    name: 'list_keywords',
    kind: 'read',
    availability: [],
    section: '4.6',
    params: ['campaign_id', 'state', 'match_type', 'marketplace_id', 'since', 'until', 'order_by', 'limit', 'account'],
    served: true,
  },
  {
    name: 'list_listings',
    kind: 'read',
    availability: SELLER,
    section: '4.5',
    params: ['keyword', 'asin', 'sku', 'marketplace_id', 'since', 'until', 'order_by', 'limit', 'account'],
    served: true,
  },
  {
    name: 'list_mutations',
    kind: 'read',
    availability: [],
    section: '4.8',
    params: ['account', 'status', 'target_type', 'target_id', 'operation', 'idempotency_key', 'cursor', 'limit'],
    served: true,
  },
  {
    name: 'list_sales_by_listing',
    kind: 'read',
    availability: SELLER,
    section: '4.6',
    params: ['since', 'until', 'marketplace_id', 'asin', 'sku', 'order_by', 'limit', 'account'],
    served: true,
  },
  { name: 'list_streams', kind: 'read', availability: [], section: '4.3', params: ['account'], served: true },
  {
    name: 'list_targets',
    kind: 'read',
    availability: [],
    section: '4.6',
    params: ['campaign_id', 'state', 'target_type', 'marketplace_id', 'since', 'until', 'order_by', 'limit', 'account'],
    served: true,
  },
  {
    name: 'patch_listing',
    kind: 'write',
    availability: SELLER_WRITE,
    section: '4.5',
    params: ['account', 'sku*', 'marketplace_id', 'product_type', 'patches*'],
    served: true,
  },
  {
    name: 'query_data',
    kind: 'read',
    availability: [],
    section: '4.7',
    params: ['sql*', 'export', 'account'],
    served: true,
  },
  {
    name: 'queue_mutations',
    kind: 'write',
    availability: SIMULATED,
    section: '4.8',
    params: ['mutations*', 'idempotency_key', 'catalog_revision'],
    served: true,
  },
  {
    name: 'revert_mutations',
    kind: 'write',
    availability: SIMULATED,
    section: '4.8',
    params: ['receipt_ids', 'automation_id', 'since', 'admitted_with_key', 'overwrite', 'dry_run', 'idempotency_key'],
    served: true,
    extension: 'undo applied changes through admission (docs/decisions/125-revert.md)',
  },
  {
    name: 'read_amazon_operation',
    kind: 'read',
    availability: NOT_ON_DEMO,
    section: '4.9',
    params: ['operation*', 'catalog_revision*', 'target*', 'parameters', 'cursor'],
    served: true,
  },
  {
    name: 'report_bug',
    kind: 'write',
    availability: NOT_ON_DEMO,
    section: '4.10',
    params: ['title*', 'what_happened', 'expected', 'tool_name', 'detail'],
    served: true,
  },
  {
    name: 'request_report',
    kind: 'write',
    availability: NOT_ON_DEMO,
    section: '4.9',
    params: ['idempotency_key*', 'operation', 'target', 'parameters', 'catalog_revision', 'continuation'],
    served: true,
  },
  {
    name: 'run_automation',
    kind: 'read',
    availability: [],
    section: '4.4',
    params: [
      'automation_id',
      'code',
      'stream_type',
      'event_id',
      'listing_id',
      'operation_dependencies',
      'sample_event',
    ],
    served: true,
  },
  {
    name: 'search_amazon_operations',
    kind: 'read',
    availability: [],
    section: '4.9',
    params: ['query', 'provider', 'family', 'method', 'deprecated', 'executable', 'limit', 'offset'],
    served: true,
  },
  {
    name: 'suggest_idea',
    kind: 'write',
    availability: NOT_ON_DEMO,
    section: '4.10',
    params: ['title*', 'what_happened', 'expected', 'tool_name', 'detail'],
    served: true,
  },
  {
    name: 'update_automation',
    kind: 'write',
    availability: SIMULATED,
    section: '4.4',
    params: ['automation_id*', 'code', 'operation_dependencies', 'title', 'activate'],
    served: true,
  },
  {
    name: 'update_listing',
    kind: 'write',
    availability: SELLER_WRITE,
    section: '4.5',
    params: ['account', 'updates*'],
    served: true,
  },
];

const BY_NAME = new Map(TOOL_TABLE.map((e) => [e.name, e]));

/** A tool's row; a served tool without one is a programming error, caught when the server starts. */
export function toolEntry(name: string): ToolEntry {
  const entry = BY_NAME.get(name);
  if (!entry) throw new Error(`the tool '${name}' has no row in the tool table (src/mcp/tool-table.ts)`);
  return entry;
}

/** A parameter's name without the spec's required mark. */
export const paramName = (param: string): string => param.replace(/\*$/, '');
export const isRequired = (param: string): boolean => param.endsWith('*');

export const notOnDemo = (entry: ToolEntry): boolean => entry.availability.includes('not on demo');
export const hiddenFromVendorOnly = (entry: ToolEntry): boolean =>
  entry.availability.includes('not for vendor-only users');

/** Whether a caller on this endpoint, whose accounts are all vendor accounts or not, is shown the tool. */
export const shownTo = (entry: ToolEntry, endpoint: Endpoint, vendorOnly: boolean): boolean =>
  !(endpoint === 'demo' && notOnDemo(entry)) && !(vendorOnly && hiddenFromVendorOnly(entry));
