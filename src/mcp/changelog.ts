// Recent product changes, newest first. `connection_status` returns the latest entries
// and `resource://service/changelog.md` renders the whole list.
export interface ChangelogEntry {
  date: string; // ISO date
  version: string;
  text: string;
}

export const CHANGELOG: readonly ChangelogEntry[] = [
  {
    date: '2026-12-03',
    version: '0.6.2',
    text: "The database away or busy (an outage, a restart, a deadlock, a lock timeout) no longer stops a read model until a restart nor gives up a live event as poison: they wait and go on once it is back. describe_data and query_data show seller views to seller accounts and vendor views to vendor accounts only; list_events and list_automations refuse an unknown event type, or a seller type over vendor accounts, instead of listing nothing. Clearer refusals: impossible dates, patch_listing's own argument names, and why a value fits none of the shapes it may take. A backtest reads running as soon as it starts.",
  },
  {
    date: '2026-12-03',
    version: '0.6.1',
    text: 'query_data answers a question grouped by listing (marketplace, currency, SKU) for one account from a rollup whose rows are the groups: the top SKUs of a year of a million order lines in about 30 ms. Demo visitors each have their own dry-run slot (two at once across visitors); alerts are mailed once when several workers run; a first sync holds a few days of orders in memory, not a 30-day report window.',
  },
  {
    date: '2026-12-03',
    version: '0.6.0',
    text: "The seller's console: Overview (sales and ad spend per day per marketplace, automation actions and failures, webhook success, what needs attention), Activity (actions, receipts, deliveries and marketplace events on one timeline, each linked to its cause; select receipts and revert them), Automations (code and versions, activate, deactivate, duplicate, archive, dry run, backtest, block flags and campaign switches) and Settings (webhooks with Send test, personal access tokens, authorized OAuth clients, marketplace connections, a pause of an account's automations, alerts by webhook or email). MCP Apps (an extension): sales per day beside get_sales_summary, an automation's recent activity beside list_automation_actions.",
  },
  {
    date: '2026-12-02',
    version: '0.5.0',
    text: "Sign-in from MCP clients with OAuth 2.1 and self-service marketplace connections; MCP revision 2026-07-28 beside the 2025 revisions; the operation catalog (search_amazon_operations, get_amazon_operation, read_amazon_operation, request_report, get_operation_result); backtest_automation and revert_mutations (extensions beyond the interface); reads see the caller's own writes at once.",
  },
  {
    date: '2026-11-27',
    version: '0.4.0',
    text: 'Writes: update_listing, patch_listing and queue_mutations admit durable mutation receipts sent to the marketplace and reconciled; marketplace events (list_events, get_event); automations written as handle(event, context), dry-run with run_automation and run live in a sandbox within milliseconds of an event, with a key-value store and signed webhooks.',
  },
  {
    date: '2026-11-22',
    version: '0.3.0',
    text: 'Read tools: list_listings, get_product_type_schema, get_sales_summary, list_sales_by_listing, get_ads_summary, list_campaigns, list_keywords, list_targets, list_ads_entities; mutation receipts readable with get_mutation, list_mutations and get_mutation_schema, and shown under each listing and ads entity as `mutations`; the v_listing_mutations view. Seller tools are hidden from vendor-only users.',
  },
  {
    date: '2026-11-22',
    version: '0.2.0',
    text: 'Observed data: listings, orders, FBA inventory, catalog items, economics, search query performance, coupons, promotions, vendor metrics and Sponsored Products entities and metrics synced in the background; query_data over the SQL views, describe_data.',
  },
  {
    date: '2026-11-22',
    version: '0.1.0',
    text: 'Foundation release: MCP over Streamable HTTP at /mcp (API bearer tokens) and /demo/mcp (fictional seller), a stdio entry for local agents, and connection_status listing accounts, selling and advertising connections and advertising profiles.',
  },
];

/** the version of the newest entry is the service version announced to MCP clients */
export const SERVICE_VERSION = CHANGELOG[0]!.version;

export function recentChanges(count = 5): ChangelogEntry[] {
  return CHANGELOG.slice(0, count);
}

export function changelogMarkdown(): string {
  const lines = ['# Changelog', ''];
  for (const e of CHANGELOG) lines.push(`## ${e.version} (${e.date})`, '', e.text, '');
  return lines.join('\n');
}
