import type { ViewColumn, ViewJoin } from './definition.js';

// What several views state alike, stated once: a column that means the same in every view that
// has it reads the same in describe_data. A view's own columns stay in its file.

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
export const accountId = (kind?: 'seller' | 'advertising' | 'vendor'): ViewColumn =>
  plain('account_id', 'uuid', kind ? `the ${kind} account` : 'the account');

export const MARKETPLACE_ID = plain('marketplace_id', 'text', 'the marketplace (v_marketplaces)');
/** Ads views: an advertising profile is one marketplace. */
export const PROFILE_MARKETPLACE_ID = plain('marketplace_id', 'text', "the profile's marketplace (v_marketplaces)");
/** For views whose money columns are all in the row's one currency. */
export const ROW_CURRENCY = plain('currency', 'text', 'ISO 4217 code of every money column of the row');

/** Coupon and promotion reports: when a deal starts, and when its cumulative totals were read. */
export const STARTS_AT = plain('starts_at', 'timestamptz', 'start, UTC');
export const REPORTED_AT = plain('reported_at', 'timestamptz', 'when these totals were downloaded');

/** A measure column in `unit`, bigint unless the view's table keeps an integer. */
const measure =
  (unit: string) =>
  (name: string, nullable: boolean, description: string, type: 'bigint' | 'integer' = 'bigint'): ViewColumn =>
    column(name, type, nullable, description, unit);

/** Money is an integer count of the currency's minor units everywhere. */
export const money = measure('minor units of currency');
/** A count of things (units, clicks, clips). */
export const count = measure('count');

export const MONEY_WARNING =
  'Money is in minor units of the row currency (JPY has no subunit); never sum across currencies.';

export const MARKETPLACES_JOIN: ViewJoin = { view: 'v_marketplaces', on: 'marketplace_id', fanOut: null };
