import type { Knex } from 'knex';
import { listingId } from '../../domain/observation/ids.js';
import { readTogether } from '../../infra/db.js';
import { latestNaming, latestNamingQuery } from '../../projections/events/queries.js';
import { createdForListingQuery, receiptsForTargetsQuery } from '../../projections/mutations/queries.js';
import { adsOfListingQuery } from '../../projections/observed/ads-queries.js';
import { activeDealsQuery, dealReportsQuery } from '../../projections/observed/deals-queries.js';
import type { ListingRecord } from '../../projections/observed/listings-search.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { profileIdsIn } from './profiles.js';
import { businessUnitsQuery } from '../../projections/observed/sales-queries.js';

// A Listing context's own lookups in the read models (its latest stock and offer notifications,
// B2B units, deal reports and deals, receipts, product ads, what its runs created, the receipts of
// the account's advertising profiles in its marketplace), sent as ONE
// statement (readTogether): for one listing (a dry run) or for every listing a live wave's events
// reached (readListingsTogether). Each answer is the rows of its query, as readTogether returns
// them (times as ISO strings); listing.ts reads them.

const DAY_MS = 86_400_000;
/** The selling notifications that report stock (spec 2.5 `data.notifications`). */
export const STOCK_NOTIFICATIONS = ['LISTINGS_ITEM_MFN_QUANTITY_CHANGE', 'FBA_INVENTORY_AVAILABILITY_CHANGES'];
/** The offer notifications whose offers include the seller's own, with its shipping. */
export const OFFER_NOTIFICATIONS = ['ANY_OFFER_CHANGED', 'B2B_ANY_OFFER_CHANGED'];
const NOTIFICATIONS = [...STOCK_NOTIFICATIONS, ...OFFER_NOTIFICATIONS];

/** Past this many listings a wave's lookups go in more than one statement (a statement's columns and bindings are bounded). */
const LISTINGS_PER_STATEMENT = 32;

export interface ListingLookups {
  /** latestNamingQuery's rows */
  recorded: unknown[];
  units: unknown[];
  dealReports: unknown[];
  /** activeDealsQuery's rows; empty when the listing has no ASIN */
  deals: unknown[];
  created: unknown[];
  receipts: unknown[];
  ads: unknown[];
  /** receiptsForTargetsQuery's rows for the account's advertising profiles in the listing's marketplace */
  profileReceipts: unknown[];
  /** the profiles those are of (an account view read since may list others) */
  profileIds: string[];
}

/** A wave's lookups by listing (listingKey). */
export type ListingsTogether = ReadonlyMap<string, ListingLookups>;

export const listingKey = (r: Pick<ListingRecord, 'marketplace_id' | 'sku'>) => `${r.marketplace_id}\u0000${r.sku}`;

function queries(db: Knex, account: AccountView, now: Date, r: ListingRecord, withRecorded = true) {
  const account_id = account.id;
  const id = listingId(account_id, r.marketplace_id, r.sku);
  const profiles = profileIdsIn(account, r.marketplace_id);
  const key = { account_id, marketplace_id: r.marketplace_id, sku: r.sku };
  return {
    ...(withRecorded ? { recorded: latestNamingQuery(db, account_id, NOTIFICATIONS, { ...key, asin: r.asin }) } : {}),
    units: businessUnitsQuery(db, key, new Date(now.getTime() - 30 * DAY_MS)),
    dealReports: dealReportsQuery(db, account_id, r.marketplace_id),
    ...(r.asin ? { deals: activeDealsQuery(db, account_id, r.marketplace_id, [r.asin], now) } : {}),
    created: createdForListingQuery(db, account_id, id),
    receipts: receiptsForTargetsQuery(db, 'Listing', [id]),
    ads: adsOfListingQuery(db, { ...key, asin: r.asin }),
    ...(profiles.length > 0 ? { profileReceipts: receiptsForTargetsQuery(db, 'AdvertisingProfile', profiles) } : {}),
  };
}

/** What the statement answers */
type Rows = Omit<ListingLookups, 'profileIds'>;

const complete = (account: AccountView, r: ListingRecord, read: Partial<Rows>): ListingLookups => ({
  recorded: read.recorded ?? [],
  units: read.units ?? [],
  dealReports: read.dealReports ?? [],
  deals: read.deals ?? [],
  created: read.created ?? [],
  receipts: read.receipts ?? [],
  ads: read.ads ?? [],
  profileReceipts: read.profileReceipts ?? [],
  profileIds: profileIdsIn(account, r.marketplace_id),
});

/** One listing's lookups in one statement. */
export async function readListingLookups(db: Knex, account: AccountView, now: Date, r: ListingRecord) {
  try {
    return complete(account, r, await readTogether(db, () => queries(db, account, now, r)));
  } catch (err) {
    if ((err as { code?: string }).code !== '42703') throw err;
    // the events read model's version 1 tables while an upgrade rebuilds them: latestNaming reads them by a scan
    const types = NOTIFICATIONS;
    const [rest, latest] = await Promise.all([
      readTogether(db, () => queries(db, account, now, r, false)),
      latestNaming(db, account.id, types, r),
    ]);
    return complete(account, r, {
      ...rest,
      recorded: [...latest].map(([stream_type, payload]) => ({ stream_type, payload })),
    });
  }
}

/** The lookups of every listing a live wave reached, in one statement per LISTINGS_PER_STATEMENT listings. */
export async function readListingsTogether(
  db: Knex,
  account: AccountView,
  now: Date,
  records: readonly ListingRecord[],
): Promise<ListingsTogether> {
  const distinct = [...new Map(records.map((r) => [listingKey(r), r])).values()];
  const found = new Map<string, ListingLookups>();
  for (let from = 0; from < distinct.length; from += LISTINGS_PER_STATEMENT) {
    const chunk = distinct.slice(from, from + LISTINGS_PER_STATEMENT);
    const read = await readTogether(db, () =>
      Object.fromEntries(
        chunk.flatMap((r, i) => Object.entries(queries(db, account, now, r)).map(([k, q]) => [`${k}_${i}`, q])),
      ),
    );
    const byIndex = chunk.map((): Partial<Rows> => ({}));
    for (const [column, rows] of Object.entries(read)) {
      const at = column.lastIndexOf('_');
      byIndex[Number(column.slice(at + 1))]![column.slice(0, at) as keyof Rows] = rows;
    }
    chunk.forEach((r, i) => found.set(listingKey(r), complete(account, r, byIndex[i]!)));
  }
  return found;
}
