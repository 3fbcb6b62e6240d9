import type { EntityType } from '../../domain/account/events.js';

// The SQL views of spec 2.15: what `query_data` queries and `describe_data` describes.
// Each view is one module (its SQL) with its catalogue beside it as JSON (catalogue.ts); the
// registry lists the ones that exist so far.

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
export const AUDIENCES = ['seller', 'advertiser', 'seller_and_advertiser', 'vendor', 'reference'] as const;
export type Audience = (typeof AUDIENCES)[number];

/**
 * Why a view is hidden from a caller whose accounts in scope are of `kinds` (spec 2.15: seller
 * and vendor views are hidden from accounts of the other kind), or null when it is shown. With
 * no account in scope nothing is hidden: the views describe what connecting one would give.
 */
export function hiddenFrom(audience: Audience, kinds: ReadonlySet<EntityType>): string | null {
  if (kinds.size === 0 || (audience !== 'seller' && audience !== 'vendor') || kinds.has(audience)) return null;
  const others = [...kinds].join(' and ');
  return `a ${audience} view, hidden from ${others} accounts`;
}

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

/**
 * A rollup of a view: its rows summed over groups of the view's rows, kept by a projection,
 * that query_data answers an aggregate query from when the query reads nothing else
 * (rollup-rewrite.ts). Its SQL returns `account_id`, the `dimensions` (and `days`) under
 * the view's names and types, then for each of the view's `measures` its sum under the
 * measure's name and, for a nullable measure, `rollup_<measure>_count` (rows where it is not
 * null), then `rollup_rows` (how many of the view's rows the group holds; never 0).
 */
export interface RollupDefinition {
  /** the rollup view's name in schema `view_rollups` */
  name: string;
  /** the view's columns each row carries as the view has them */
  dimensions: readonly string[];
  /** timestamptz columns of the view the rollup keeps to the UTC day: the start of the day */
  days: readonly string[];
  /**
   * Dimensions that tell one account's rows apart (the others follow from them): a query of one
   * account grouping by each of these reads every row as its group, without summing again.
   */
  unique?: readonly string[];
  sql: string;
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
  /** integer columns whose sums the rollups keep */
  measures?: readonly string[];
  /** smallest first: an aggregate query is answered from the first that has what it reads */
  rollups?: readonly RollupDefinition[];
}
