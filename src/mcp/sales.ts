import { z } from 'zod';
import { MARKETPLACES } from '../domain/shared/marketplaces.js';
import type { AccountView } from '../projections/accounts/queries.js';
import { ordersFreshness, type SalesScope } from '../projections/observed/sales-queries.js';
import { sellingAccountsForRead } from './accounts.js';
import type { ToolContext } from './tool.js';
import { daysBetween } from '../domain/shared/calendar.js';
import { dayWindow, previousWindow, type DayWindow, type WindowedRead } from './window.js';

// What the two sales reads share (spec 4.2, 4.6): the accounts with a selling connection
// they cover, each marketplace's window of whole local days, and the `freshness` block.

/** One marketplace's window as the response states it: local days, inclusive. */
export const marketplaceWindowSchema = z.object({
  marketplace_id: z.string(),
  time_zone: z.string().describe("the marketplace's IANA time zone, whose local days the window holds"),
  since: z.iso.date().describe('first local day, inclusive'),
  until: z.iso.date().describe('last local day, inclusive'),
  days: z.number().int().describe('days in the window'),
});
export type MarketplaceWindow = z.output<typeof marketplaceWindowSchema>;

/** The `freshness` entries of the sales reads: one per account and marketplace covered. */
export const salesFreshnessSchema = z
  .array(
    z.object({
      account_id: z.string(),
      account_name: z.string(),
      marketplace_id: z.string(),
      orders_without_items: z
        .number()
        .int()
        .describe('confirmed orders in the window whose items were not read yet: their sales are missing'),
      pending_orders: z.number().int().describe('orders in the window still pending: no lines, not counted yet'),
      earliest_order_at: z.iso
        .datetime()
        .nullable()
        .describe('the first purchase of any order held for the marketplace, whatever its status'),
      last_order_at: z.iso.datetime().nullable().describe('the last purchase of any order held for the marketplace'),
    }),
  )
  .optional()
  .describe('how complete the orders read are; absent when no covered account has a selling connection');

export interface SalesReach {
  /** covered accounts with a selling connection; empty: no `freshness` in the answer */
  sellers: AccountView[];
  windows: MarketplaceWindow[];
  scopes: SalesScope[];
}

/**
 * The accounts and windows a sales read covers. A named account without a selling
 * connection is `not_connected`; without `account`, such accounts are skipped.
 */
export async function salesReach(ctx: ToolContext, input: WindowedRead): Promise<SalesReach> {
  const wanted = input.marketplace_id;
  const sellers = await sellingAccountsForRead(ctx, input.account);
  const marketplacesOf = (a: AccountView) =>
    (a.selling?.marketplaces ?? [])
      .filter((m) => m.participating && (wanted === undefined || m.marketplace_id === wanted))
      .map((m) => m.marketplace_id);
  const covered = new Set([...sellers.flatMap(marketplacesOf), ...(wanted === undefined ? [] : [wanted])]);
  const now = ctx.now();
  const windows = MARKETPLACES.filter((m) => covered.has(m.id)).map((m) => ({
    marketplace_id: m.id,
    time_zone: m.timeZone,
    ...dayWindow(input.since, input.until, m.timeZone, now),
  }));
  // nothing to cover: the arguments are still checked
  if (windows.length === 0) dayWindow(input.since, input.until, 'UTC', now);
  return { sellers, windows: windows.map(stated), scopes: scopesOf(sellers, windows, marketplacesOf) };
}

const stated = (w: { marketplace_id: string; time_zone: string } & DayWindow): MarketplaceWindow => ({
  marketplace_id: w.marketplace_id,
  time_zone: w.time_zone,
  since: w.first,
  until: w.last,
  days: w.days,
});

function scopesOf(
  sellers: AccountView[],
  windows: Array<{ marketplace_id: string; time_zone: string } & DayWindow>,
  marketplacesOf: (a: AccountView) => string[],
): SalesScope[] {
  return sellers.flatMap((a) =>
    marketplacesOf(a).map((id) => {
      const w = windows.find((x) => x.marketplace_id === id)!;
      return { account_id: a.id, marketplace_id: id, time_zone: w.time_zone, first: w.first, last: w.last };
    }),
  );
}

/** The same accounts over the windows of the same length just before (`compare_to_previous`). */
export function previousReach(reach: SalesReach): SalesReach {
  const before = (first: string, last: string) => previousWindow({ first, last, days: daysBetween(first, last) + 1 });
  return {
    sellers: reach.sellers,
    windows: reach.windows.map((w) => {
      const p = before(w.since, w.until);
      return { ...w, since: p.first, until: p.last };
    }),
    scopes: reach.scopes.map((s) => {
      const p = before(s.first, s.last);
      return { ...s, first: p.first, last: p.last };
    }),
  };
}

/** `{ account_id, account_name, ...row }` for rows carrying an account_id of the reach. */
export function withAccountNames<T extends { account_id: string }>(
  reach: SalesReach,
  rows: readonly T[],
): Array<{ account_id: string; account_name: string } & Omit<T, 'account_id'>> {
  const names = new Map(reach.sellers.map((a) => [a.id, a.name]));
  return rows.map(({ account_id, ...rest }) => ({ account_id, account_name: names.get(account_id) ?? '', ...rest }));
}

/** `freshness` (one entry per account and marketplace covered), or nothing when no covered account has a selling connection. */
export async function freshnessOf(
  ctx: ToolContext,
  reach: SalesReach,
): Promise<{ freshness?: z.input<typeof salesFreshnessSchema> }> {
  if (reach.sellers.length === 0) return {};
  const iso = (at: Date | null) => at?.toISOString() ?? null;
  const entries = await ordersFreshness(ctx.db, reach.scopes);
  return {
    freshness: withAccountNames(
      reach,
      entries.map((e) => ({ ...e, earliest_order_at: iso(e.earliest_order_at), last_order_at: iso(e.last_order_at) })),
    ),
  };
}
