import type { ViewColumn, ViewJoin } from './definition.js';

// What several views state alike, stated once: a column that means the same in every view that
// has it reads the same in describe_data. A view's catalogue (its JSON) names these by key.

/** A view's column: `unit` only for measures (null for identifiers, text and times). */
export const column = (
  name: string,
  type: string,
  nullable: boolean,
  description: string,
  unit: string | null = null,
): ViewColumn => ({ name, type, unit, nullable, description });

const plain = (name: string, type: string, description: string): ViewColumn => column(name, type, false, description);

/** The first column of every account view; `kind` names which accounts the view shows. */
const accountId = (kind?: 'seller' | 'advertising' | 'vendor'): ViewColumn =>
  plain('account_id', 'uuid', kind ? `the ${kind} account` : 'the account');

export const SHARED_COLUMNS = {
  account_id: accountId(),
  seller_account_id: accountId('seller'),
  advertising_account_id: accountId('advertising'),
  vendor_account_id: accountId('vendor'),
  marketplace_id: plain('marketplace_id', 'text', 'the marketplace (v_marketplaces)'),
  /** Ads views: an advertising profile is one marketplace. */
  profile_marketplace_id: plain('marketplace_id', 'text', "the profile's marketplace (v_marketplaces)"),
  /** For views whose money columns are all in the row's one currency. */
  row_currency: plain('currency', 'text', 'ISO 4217 code of every money column of the row'),
  /** Coupon and promotion reports: when a deal starts, and when its cumulative totals were read. */
  starts_at: plain('starts_at', 'timestamptz', 'start, UTC'),
  reported_at: plain('reported_at', 'timestamptz', 'when these totals were downloaded'),
} as const satisfies Record<string, ViewColumn>;

export const SHARED_JOINS = {
  v_marketplaces: { view: 'v_marketplaces', on: 'marketplace_id', fanOut: null },
} as const satisfies Record<string, ViewJoin>;

export const SHARED_WARNINGS = {
  money: 'Money is in minor units of the row currency (JPY has no subunit); never sum across currencies.',
} as const satisfies Record<string, string>;
