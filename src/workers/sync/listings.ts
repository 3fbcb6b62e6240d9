import { syncWith } from './job.js';
import { listingFromReport } from './flat-files.js';
import { retireDeletedListingTargets, liveSkus } from './listing-deletions.js';
import { sellingContext } from './listings-context.js';
import { runReports, type ReportPlan } from './reports.js';
import { completeScopes, recordFirstRead, syncScope } from './scope.js';
import { LISTINGS_DATASET } from '../../domain/observation/datasets.js';
import { LISTINGS_REPORT } from '../../marketplace/clients/flat-file.js';

// Listings per marketplace (dataset `listings`, scope the marketplace id): searchListingsItems
// with everything a listing row needs, one recorded page per API page of up to 20 items. A
// marketplace never read completely is first read from the all-listings report (one report, where
// the pages take a call per 20 listings at a few calls a second), its rows recorded as items in
// pages of 20, so every listing shows at once; the per-page read that follows in the same run
// replaces those pages with what the report lacks (product types, which writes need, price
// bounds, handling times, issues, deleted listings). After each complete per-page read, pending
// requests of listings it no longer shows alive are withheld.

const PAGE_SIZE = 20;
/** Pages of a report recorded at once. */
const PARALLEL_PAGES = 8;

export const listingsSync = syncWith(sellingContext, {
  name: 'listings',
  everyMs: 3_600_000,
  async run(deps, account_id, selling) {
    const complete = new Set(await completeScopes(deps.db, account_id, LISTINGS_DATASET));
    const live = new Map<string, Set<string>>();
    const key = (marketplaceId: string) => ({ account_id, dataset: LISTINGS_DATASET, scope: marketplaceId });
    const plans = selling.marketplaces
      .filter((m) => !complete.has(m))
      .map((marketplaceId): ReportPlan => ({
        key: `${LISTINGS_DATASET}/${marketplaceId}`,
        api: 'reports',
        document: 'flatFile',
        create: (client) => client.createReport({ reportType: LISTINGS_REPORT, marketplaceIds: [marketplaceId] }),
        handle(content) {
          const rows = (content ?? []) as AsyncIterable<Record<string, string>[]>;
          return recordFirstRead(
            deps.ctx,
            key(marketplaceId),
            listingPages(rows, marketplaceId),
            deps.now,
            PARALLEL_PAGES,
          );
        },
      }));
    let recorded = plans.length ? (await runReports(deps, account_id, selling.reports, plans)).recorded : 0;
    for (const marketplaceId of selling.marketplaces) {
      const pages = selling.client.listings.searchListingsItems(selling.sellerId, marketplaceId, {
        includedData: ['summaries', 'attributes', 'offers', 'fulfillmentAvailability', 'issues'],
        pageSize: PAGE_SIZE,
      });
      live.set(marketplaceId, new Set());
      const read = await syncScope(
        deps.ctx,
        key(marketplaceId),
        liveSkus(pages, marketplaceId, live.get(marketplaceId)!),
        deps.now,
      );
      recorded += read.recorded;
    }
    for (const [marketplaceId, skus] of live) await retireDeletedListingTargets(deps, account_id, marketplaceId, skus);
    return { recorded };
  },
});

/** The report's rows as listing items in pages of PAGE_SIZE, as they are parsed. */
async function* listingPages(
  batches: AsyncIterable<Record<string, string>[]> | Iterable<Record<string, string>[]>,
  marketplaceId: string,
): AsyncIterable<unknown[]> {
  let page: unknown[] = [];
  for await (const rows of batches)
    for (const row of rows) {
      const item = listingFromReport(row, marketplaceId);
      if (item === null) continue;
      page.push(item);
      if (page.length === PAGE_SIZE) {
        yield page;
        page = [];
      }
    }
  if (page.length > 0) yield page;
}
