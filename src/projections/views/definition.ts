// The SQL views of spec 2.15: what `query_data` queries and `describe_data` describes.
// Each view is one definition file; the registry lists the ones that exist so far.

/** The twelve view names of spec 2.15, exactly. */
export const VIEW_NAMES = [
  'v_sales_lines',
  'v_ad_performance',
  'v_advertised_products',
  'v_listings',
  'v_listing_mutations',
  'v_catalog_items',
  'v_marketplaces',
  'v_search_query_performance',
  'v_seller_economics',
  'v_vendor_metrics',
  'v_coupon_performance',
  'v_promotion_performance',
] as const;

export type ViewName = (typeof VIEW_NAMES)[number];

/**
 * Who may see a view's rows. `seller` views show only seller accounts' rows and `vendor`
 * views only vendor accounts' (spec 2.15: hidden from accounts of the other kind);
 * `advertiser` and `seller_and_advertiser` views show any of the caller's accounts;
 * `reference` views carry no account_id and are the same for everyone.
 */
export type Audience = 'seller' | 'advertiser' | 'seller_and_advertiser' | 'vendor' | 'reference';

export interface ViewColumn {
  name: string;
  /** a PostgreSQL type name as `format_type` would print it or any alias of it (`timestamptz`); checked at migration */
  type: string;
  /** e.g. 'minor units of currency', 'count', 'ratio 0-1'; null for identifiers and text */
  unit: string | null;
  nullable: boolean;
  description: string;
}

export interface ViewJoin {
  view: ViewName;
  /** the join condition in words or SQL, e.g. 'account_id, marketplace_id' */
  on: string;
  /** what multiplies rows when joining this way; null when the join cannot fan out */
  fanOut: string | null;
}

export interface ViewDefinition<Name extends string = ViewName> {
  name: Name;
  audience: Audience;
  grain: string;
  /** the view's columns in order; account views start with account_id (uuid) */
  columns: readonly ViewColumn[];
  /** how current the rows are and what restates */
  freshness: string;
  joins: readonly ViewJoin[];
  /** traps for whoever aggregates or joins this view (spec 2.15's fan-out notes) */
  warnings: readonly string[];
  /** the column `describe_data` coverage reports min/max of; null when the view has no date */
  dateColumn: string | null;
  /**
   * A SELECT over read-model tables (`rm.*`) returning exactly `columns`, in order, for
   * every account. The migration wraps it in the account filter: never filter by the
   * caller here.
   */
  sql: string;
}
