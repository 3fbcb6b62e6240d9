import { z } from 'zod';
import { searchListings, type ListingRecord } from '../../projections/observed/listings-search.js';
import { accountArgument, sellingAccountsForRead } from '../accounts.js';
import { marketplaceIdArgument } from '../marketplace-argument.js';
import { withMutations } from '../target-mutations.js';
import { readTool } from '../tool.js';
import { instantWindow, limitArgument, sinceArgument, untilArgument } from '../window.js';
import { listingId } from '../../domain/observation/ids.js';

// Spec 2.5 / 4.5: the seller's listings, one row per (SKU, marketplace), money in minor units
// of the row's currency, with the raw sources under `data`. Listings the marketplace reports
// DELETED stay listed (status DELETED, active false) until they are gone from its reads.

const money = (v: string | null) => (v === null ? null : Number(v));

function listingOf(r: ListingRecord, accountName: string) {
  return {
    id: listingId(r.account_id, r.marketplace_id, r.sku),
    type: 'Listing' as const,
    account_id: r.account_id,
    account_name: accountName,
    asin: r.asin,
    sku: r.sku,
    marketplace_id: r.marketplace_id,
    title: r.title,
    currency: r.currency,
    price: money(r.price),
    floor: money(r.floor),
    ceiling: money(r.ceiling),
    b2b_price: money(r.b2b_price),
    handling_time: r.handling_time,
    restock_date: r.restock_date,
    shipping_group: r.shipping_group,
    conditionType: r.condition_type,
    condition: r.condition,
    status: r.status,
    active: r.status === 'BUYABLE' || r.status === 'DISCOVERABLE',
    product_type: r.product_type,
    fulfillment_channel: r.fulfillment_channel,
    created_at: r.created_at?.toISOString() ?? null,
    data: {
      // FBA listings carry their inventory summary (null until the inventory sync read it); MFN ones none
      fba: r.fulfillment_channel === 'FBA' ? { inventory: r.fba_inventory ?? null } : null,
      listings_item: r.data.listings_item ?? null,
      // no stock notifications are ingested yet: unknown, not "none arrived"
      notifications: null,
    },
  };
}

export const listListings = readTool('list_listings', 'List listings', {
  description:
    "Lists your listings, one row per SKU and marketplace, newest first (created_at). Money (price, floor, ceiling, b2b_price) is in integer minor units of the row's currency (whole yen for JPY); floor/ceiling are that marketplace's own bounds. `status` is BUYABLE, DISCOVERABLE or DELETED, null until reported; `active` is true only for BUYABLE or DISCOVERABLE. `data` holds the raw sources: fba.inventory (FBA inventory summary), listings_item (Listings Items API item), notifications. `id` with `type` names the listing as a mutation target. `total` counts every match before `limit`.",
  input: {
    keyword: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('a substring of the title or SKU (case-insensitive), or an exact ASIN'),
    asin: z.string().trim().min(1).optional().describe('exact ASIN'),
    sku: z.string().min(1).optional().describe('exact SKU'),
    marketplace_id: marketplaceIdArgument,
    since: sinceArgument.describe(
      'listings added (created_at) at or after this ISO 8601 date or timestamp; a bare date is the whole UTC day',
    ),
    until: untilArgument.describe('listings added before this ISO 8601 timestamp, or up to the end of this UTC date'),
    order_by: z.enum(['created_at']).optional().describe('created_at: newest first (also the default)'),
    limit: limitArgument(),
    account: accountArgument,
  },
  async handler(input, ctx) {
    const window = instantWindow(input.since, input.until);
    const accounts = await sellingAccountsForRead(ctx, input.account);
    if (accounts.length === 0) return { listings: [], total: 0 };
    const names = new Map(accounts.map((a) => [a.id, a.name]));
    // the window's instants stand in for the since/until text
    const { rows, total } = await searchListings(ctx.db, {
      ...input,
      ...window,
      account_ids: accounts.map((a) => a.id),
    });
    return {
      listings: await withMutations(
        ctx.db,
        'Listing',
        rows.map((r) => listingOf(r, names.get(r.account_id)!)),
      ),
      total,
    };
  },
});
