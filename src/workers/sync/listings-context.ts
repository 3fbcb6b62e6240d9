import { createSellingClient, type SellingClient } from '../../marketplace/clients/index.js';
import type { ReportsClient } from '../../marketplace/clients/reports.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { connectionCredentials } from '../credentials.js';
import type { SyncDeps } from './job.js';
import { reportsClientFor } from './reports.js';
import { syncScope } from './scope.js';

// What every seller-data sync (listings, catalog items, orders, FBA inventory) starts from:
// the account's seller id and participating marketplaces as the accounts read model has
// them, and selling and reports clients with the connection's credentials.

export interface SellingContext {
  sellerId: string;
  marketplaces: string[];
  client: SellingClient;
  /** the same connection's reports, for first syncs by bulk report */
  reports: ReportsClient;
}

/**
 * Null when there is nothing to sync: a vendor account, no selling connection, an inactive
 * one or no credentials. Throws while the account isn't in the read model yet, so the queue retries.
 */
export async function sellingContext(deps: SyncDeps, account_id: string): Promise<SellingContext | null> {
  const row:
    | {
        entity_type: string;
        selling: {
          provider_id: string;
          credentials?: string | null;
          marketplaces?: { marketplace_id: string; participating: boolean }[];
          inactive?: unknown;
        } | null;
      }
    | undefined = await deps.db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .where({ account_id })
    .first('entity_type', 'selling');
  if (!row) throw new Error(`account ${account_id} is not in the read model yet`);
  const refreshToken = (await connectionCredentials(deps.credentials, row.selling)).selling_refresh_token;
  if (row.entity_type !== 'seller' || !row.selling || row.selling.inactive || !refreshToken) return null;
  const marketplaces = (row.selling.marketplaces ?? [])
    .filter((m) => m.participating)
    .map((m) => m.marketplace_id)
    .sort();
  const client = createSellingClient({ endpoint: deps.endpoints.sellingApiUrl, lwa: deps.lwa, refreshToken });
  return { sellerId: row.selling.provider_id, marketplaces, client, reports: reportsClientFor(deps, refreshToken) };
}

/**
 * One complete read of `dataset` per participating marketplace (scope the marketplace id),
 * of the pages `pagesOf` gives for it; the number of events recorded.
 */
export async function syncPerMarketplace(
  deps: SyncDeps,
  account_id: string,
  selling: SellingContext,
  dataset: string,
  pagesOf: (marketplaceId: string) => AsyncIterable<unknown[]> | Promise<AsyncIterable<unknown[]>>,
): Promise<{ recorded: number }> {
  let recorded = 0;
  for (const marketplaceId of selling.marketplaces) {
    const pages = await pagesOf(marketplaceId);
    recorded += (await syncScope(deps.ctx, { account_id, dataset, scope: marketplaceId }, pages, deps.now)).recorded;
  }
  return { recorded };
}
