import type { Knex } from 'knex';
import { aggregateStream } from '../../commands/shared/handler.js';
import { reportDecider, type ReportState } from '../../domain/report/decide.js';
import { REPORT_LIMITS } from '../../domain/report/limits.js';
import { reportTypeOf } from '../../domain/report/operations.js';
import { reportView } from '../../domain/report/view.js';
import { listingId } from '../../domain/observation/ids.js';
import type { EventStore } from '../../eventstore/port.js';
import type { AccountView, ProfileView } from '../../projections/accounts/queries.js';
import { receiptsForTargets, type Receipt } from '../../projections/mutations/queries.js';
import type { TargetType } from '../../domain/mutation/payloads.js';
import { observedEntities, type EntityRow } from '../../projections/observed/ads-queries.js';
import { INVENTORY_DATASET } from '../../domain/observation/datasets.js';
import { INVENTORY_TABLE } from '../../projections/observed/inventory.js';
import { CURRENT_LISTINGS_TABLE, LISTING_TARGETS_TABLE } from '../../projections/observed/listings.js';
import { listingsMentioned, type ListingRecord } from '../../projections/observed/listings-search.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { findReport } from '../../projections/reports/queries.js';
import { advertisingProfiles, entityShapes, trailing30 } from './ads.js';
import { dealsFor, type Deals } from './deals.js';
import { receiptInContext } from './receipts.js';

// The Report scope's context (spec 2.11, 4.11): the report receipt's metadata, and bounded
// selections of what the report covers on the same account (its connection's marketplaces; for
// an ads report, its profile's): campaigns, inventories, listings and advertising profiles, each
// at most 50 rows ordered by local id, `completeness` saying how many came and whether more
// exist. The whole context stays under 500,000 bytes: collections are cut from the end (and say
// so) until it fits.

type Json = Record<string, unknown>;

export interface ReportRun {
  db: Knex;
  store: EventStore | null;
  account: AccountView;
  event: Json;
  now: Date;
}

/**
 * What a report context selects from: the read models as of now (live and dry runs), or the
 * account's log as of a past moment (backtests).
 */
export interface ReportReads {
  /** every campaign of these profiles, with its trailing 30 days of metrics */
  campaigns(profiles: readonly ProfileView[]): Promise<EntityRow[]>;
  /** the account's current listings in these marketplaces, by local id, the first `limit` */
  listings(marketplaces: readonly string[], limit: number): Promise<ListingRecord[]>;
  /** each SKU's FBA inventory row in these marketplaces */
  inventories(marketplaces: readonly string[]): Promise<InventoryRow[]>;
  receipts(type: TargetType, ids: readonly string[]): Promise<Map<string, Receipt[]>>;
  /** the deals of no ASIN in view: whether and when the reports were read */
  deals(marketplace_id: string): Promise<Deals>;
  profiles(profiles: readonly ProfileView[]): Promise<Array<{ id: string }>>;
}

export interface InventoryRow {
  marketplace_id: string;
  sku: string;
  asin: string | null;
  data: unknown;
}

export function readModelReportReads(run: ReportRun): ReportReads {
  const { db, account, now } = run;
  return {
    campaigns: (profiles) =>
      observedEntities(db, 'Campaign', {
        accountIds: [account.id],
        windows: trailing30(account, profiles, now),
        limit: 1_000_000,
      }),
    async listings(marketplaces, limit) {
      const picked: Array<{ marketplace_id: string; sku: string }> = await db
        .withSchema(READ_MODEL_SCHEMA)
        .from(`${LISTING_TARGETS_TABLE} as t`)
        .join(`${CURRENT_LISTINGS_TABLE} as c`, (j) =>
          j.on('c.account_id', 't.account_id').andOn('c.marketplace_id', 't.marketplace_id').andOn('c.sku', 't.sku'),
        )
        .where('t.account_id', account.id)
        .whereIn('t.marketplace_id', [...marketplaces])
        .orderBy('t.listing_id')
        .limit(limit)
        .select('t.marketplace_id', 't.sku');
      return listingsMentioned(
        db,
        account.id,
        picked.map((p) => ({ sku: p.sku, asin: null, marketplace_id: p.marketplace_id })),
      );
    },
    async inventories(marketplaces) {
      // each SKU's row of the inventory sync's last complete read
      const { rows } = (await db.raw(
        `select distinct on (i.marketplace_id, i.sku) i.marketplace_id, i.sku, i.asin, i.data
         from ${READ_MODEL_SCHEMA}.${INVENTORY_TABLE} i
         join ${READ_MODEL_SCHEMA}.observed_scopes s on s.account_id = i.account_id and s.dataset = ? and s.scope = i.scope and i.page < s.pages
         where i.account_id = ? and i.marketplace_id = any(?)
         order by i.marketplace_id, i.sku, i.page desc`,
        [INVENTORY_DATASET, account.id, [...marketplaces]],
      )) as { rows: InventoryRow[] };
      return rows;
    },
    receipts: (type, ids) => receiptsForTargets(db, type, [...ids]),
    deals: (marketplace_id) => dealsFor(db, account.id, marketplace_id, [], now),
    profiles: (profiles) => advertisingProfiles(db, profiles),
  };
}

interface Selection<T> {
  rows: T[];
  truncated: boolean;
}

const cut = <T>(rows: T[]): Selection<T> => ({
  rows: rows.slice(0, REPORT_LIMITS.collectionRows),
  truncated: rows.length > REPORT_LIMITS.collectionRows,
});

/** The context of a report completion; null when the event names no report receipt of the account. */
export async function reportContext(
  run: ReportRun,
  reads: ReportReads = readModelReportReads(run),
): Promise<Json | null> {
  const id = typeof run.event.reportReceiptId === 'string' ? run.event.reportReceiptId.toLowerCase() : null;
  if (!id) return null;
  const state = await receiptState(run, id);
  if (!state?.requested || state.requested.account_id !== run.account.id) return null;
  const view = reportView(state);
  const request = state.requested;
  const ads = request.api === 'ads';
  const profiles = (run.account.ads?.profiles ?? []).filter((p) =>
    ads ? p.provider_profile_id === request.profile_id : request.marketplace_ids.includes(p.marketplace_id),
  );
  const marketplaces = ads ? profiles.map((p) => p.marketplace_id) : request.marketplace_ids;
  const [campaigns, listings, inventories, advertising] = await Promise.all([
    campaignsOf(reads, profiles),
    listingsOf(run, reads, marketplaces),
    inventoriesOf(run, reads, marketplaces),
    reads.profiles(profiles.slice(0, REPORT_LIMITS.collectionRows + 1)),
  ]);
  const profileRows = cut(advertising.sort((a, b) => a.id.localeCompare(b.id)));
  const connection = ads ? run.account.ads : run.account.selling;
  const collections = { listings, campaigns, inventories, advertisingProfiles: profileRows };
  const context = (): Json => ({
    report: {
      id: view.mutation_id,
      reportType: reportTypeOf(request),
      operation: view.operation,
      providerStatus: view.provider_status,
      ingestionStatus: view.ingestion_status,
      byteSize: view.byte_size,
      mediaType: view.media_type,
      checksum: view.checksum,
      expiresAt: view.expires_at,
      previousPage: view.previous_page,
      hasContinuation: view.has_continuation,
      digest: view.digest,
      correlation: view.correlation,
    },
    completeness: Object.fromEntries(
      Object.entries(collections).map(([name, s]) => [name, { returned: s.rows.length, truncated: s.truncated }]),
    ),
    connection: connection
      ? { type: connection.type, id: connection.id, marketplaceIds: marketplaces }
      : { type: ads ? 'Advertiser' : 'SellingPartner', id: null, marketplaceIds: marketplaces },
    inventories: inventories.rows,
    listings: listings.rows,
    campaigns: campaigns.rows,
    advertisingProfiles: profileRows.rows,
  });
  return withinBytes(context, collections);
}

/** The receipt as the log has it (the completion follows its finalization), else as the read model does. */
async function receiptState(run: ReportRun, id: string): Promise<ReportState | null> {
  if (run.store) return (await aggregateStream(run.store, reportDecider, id)).state;
  return findReport(run.db, [run.account.id], id);
}

/** Drops the last row of the largest collection, marking it truncated, until the context fits. */
function withinBytes(context: () => Json, collections: Record<string, Selection<unknown>>): Json {
  for (;;) {
    const built = context();
    if (Buffer.byteLength(JSON.stringify(built), 'utf8') <= REPORT_LIMITS.contextBytes) return built;
    const largest = Object.values(collections)
      .filter((s) => s.rows.length > 0)
      .sort((a, b) => JSON.stringify(b.rows).length - JSON.stringify(a.rows).length)[0];
    if (!largest) return built;
    largest.rows.pop();
    largest.truncated = true;
  }
}

async function campaignsOf(reads: ReportReads, profiles: readonly ProfileView[]): Promise<Selection<Json>> {
  if (profiles.length === 0) return cut([]);
  const observed = await reads.campaigns(profiles);
  observed.sort((a, b) => String(a.row.id).localeCompare(String(b.row.id)));
  const selected = cut(observed);
  const receipts = await reads.receipts(
    'Campaign',
    selected.rows.map((r) => r.row.id as string),
  );
  const shape = entityShapes(profiles, receipts);
  // deals of no ASIN in view: a campaign's children (and so its ASINs) are not selected here
  const marketplaceOf = new Map(profiles.map((p) => [p.provider_profile_id, p.marketplace_id]));
  const deals = new Map<string, Deals>();
  for (const marketplace of new Set(marketplaceOf.values())) deals.set(marketplace, await reads.deals(marketplace));
  // a campaign's children are not selected: the report's own rows say what it covers
  const rows = selected.rows.map((r) => ({
    ...shape.campaign(r),
    ...deals.get(marketplaceOf.get(String(r.row.provider_profile_id))!)!,
    adGroups: [],
    ads: [],
    targets: [],
    negativeTargets: [],
  }));
  return { rows, truncated: selected.truncated };
}

async function listingsOf(
  run: ReportRun,
  reads: ReportReads,
  marketplaces: readonly string[],
): Promise<Selection<Json>> {
  if (marketplaces.length === 0) return cut([]);
  const found = (await reads.listings(marketplaces, REPORT_LIMITS.collectionRows + 1))
    .map((r) => ({ id: listingId(run.account.id, r.marketplace_id, r.sku), r }))
    .sort((a, b) => a.id.localeCompare(b.id));
  const selected = cut(found);
  const receipts = await reads.receipts(
    'Listing',
    selected.rows.map((l) => l.id),
  );
  const rows = selected.rows.map(({ id, r }) => ({
    type: 'Listing',
    id,
    sku: r.sku,
    asin: r.asin,
    marketplaceId: r.marketplace_id,
    data: r.data,
    mutations: (receipts.get(id) ?? []).map(receiptInContext),
  }));
  return { rows, truncated: selected.truncated };
}

async function inventoriesOf(
  run: ReportRun,
  reads: ReportReads,
  marketplaces: readonly string[],
): Promise<Selection<Json>> {
  if (marketplaces.length === 0 || run.account.entity_type !== 'seller') return cut([]);
  const shaped = (await reads.inventories(marketplaces)).map((r) => ({
    type: 'Inventory',
    id: listingId(run.account.id, r.marketplace_id, r.sku),
    sku: r.sku,
    asin: r.asin,
    marketplaceId: r.marketplace_id,
    data: r.data,
  }));
  return cut(shaped.sort((a, b) => a.id.localeCompare(b.id)));
}
