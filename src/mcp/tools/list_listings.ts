import { z } from 'zod';
import { FULFILLMENT_CHANNELS, LISTING_STATUSES } from '../../projections/observed/listings.js';
import { searchListings, type ListingRecord } from '../../projections/observed/listings-search.js';
import { accountArgument, sellingAccountsForRead } from '../accounts.js';
import { marketplaceIdArgument } from '../marketplace-argument.js';
import { rowMutations, withMutations } from '../target-mutations.js';
import { readTool } from '../tool.js';
import { instantWindow, limitArgument, sinceArgument, untilArgument } from '../window.js';
import { listingId } from '../../domain/observation/ids.js';

// Spec 2.5 / 4.5: the seller's listings, one row per (SKU, marketplace), money in minor units
// of the row's currency, with the raw sources under `data`. Listings the marketplace reports
// DELETED stay listed (status DELETED, active false) until they are gone from its reads.

const money = (v: string | null) => (v === null ? null : Number(v));

const minor = (what: string) =>
  z.number().int().nullable().describe(`${what}, integer minor units of currency; null when not reported`);

const listingSchema = z.object({
  id: z.string().describe('the local listing id: with `type`, the mutation target'),
  type: z.literal('Listing'),
  account_id: z.string(),
  account_name: z.string(),
  asin: z.string().nullable(),
  sku: z.string(),
  marketplace_id: z.string(),
  title: z.string().nullable(),
  currency: z.string().nullable().describe('the currency of price, floor, ceiling and b2b_price'),
  price: minor('the consumer price'),
  floor: minor("this marketplace's minimum seller-allowed price"),
  ceiling: minor("this marketplace's maximum seller-allowed price"),
  b2b_price: minor('the business (B2B) price'),
  handling_time: z
    .number()
    .int()
    .nullable()
    .describe('business days to ship (lead_time_to_ship_max_days); null: the account default'),
  restock_date: z.string().nullable().describe('YYYY-MM-DD'),
  shipping_group: z.string().nullable().describe('the merchant shipping template id'),
  conditionType: z.string().nullable().describe("the marketplace's full condition token, e.g. new_new"),
  condition: z.string().nullable().describe("the token's family: new, used, collectible, refurbished or club"),
  status: z.enum(LISTING_STATUSES).nullable().describe('null until the marketplace reports a status'),
  active: z.boolean().describe('true only when status is BUYABLE or DISCOVERABLE'),
  product_type: z.string().nullable(),
  fulfillment_channel: z
    .enum(FULFILLMENT_CHANNELS)
    .nullable()
    .describe('FBA (fulfilled by Amazon) or MFN (by the merchant)'),
  created_at: z.iso.datetime().nullable().describe('when the listing was added'),
  data: z
    .object({
      fba: z
        .object({
          inventory: z
            .record(z.string(), z.unknown())
            .nullable()
            .describe('the FBA inventory summary, keys unchanged; null until the inventory sync read it'),
        })
        .nullable()
        .describe('null for merchant-fulfilled listings'),
      listings_item: z
        .record(z.string(), z.unknown())
        .nullable()
        .describe('the Listings Items API item, keys unchanged'),
      notifications: z
        .array(z.unknown())
        .nullable()
        .describe('latest stock notification envelopes; null: none are ingested yet'),
    })
    .describe('the raw sources, keys and units unchanged'),
  mutations: rowMutations,
});

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
  output: z.object({
    listings: z.array(listingSchema),
    total: z.number().int().describe('every match before `limit`'),
  }),
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
