// Recent product changes, newest first. `connection_status` returns the latest entries
// and `resource://service/changelog.md` renders the whole list.
export interface ChangelogEntry {
  date: string; // ISO date
  version: string;
  text: string;
}

export const CHANGELOG: readonly ChangelogEntry[] = [
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
