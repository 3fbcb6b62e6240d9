import { readModelLookups, type AdmissionLookups } from '../../commands/admission/lookups.js';
import type { Knex } from '../../infra/db.js';
import type { CurrentListing } from '../../projections/admission/queries.js';
import type { ListingRecord } from '../../projections/observed/listings-search.js';
import type { AccountHistory } from './history.js';

// What a backtest run's admission looks up, as the account's log had it at the event's time: its
// listings (a listing deleted or gone since is still the target it was then) and the operator's
// switch. Advertising targets are resolved from today's read models (decision 120 says why).

export function lookupsAsOf(db: Knex, history: AccountHistory, account_id: string, t: number): AdmissionLookups {
  const today = readModelLookups(db);
  const current = (r: ListingRecord): CurrentListing => ({
    account_id,
    marketplace_id: r.marketplace_id,
    sku: r.sku,
    asin: r.asin,
    product_type: r.product_type,
    status: r.status,
  });
  const live = (r: ListingRecord | undefined) => (r && r.status !== 'DELETED' ? current(r) : null);
  return {
    async resolveTarget(accountIds, target) {
      if (target.type !== 'Listing') return today.resolveTarget(accountIds, target);
      const r = accountIds.includes(account_id) ? history.listing(target.id, t) : undefined;
      if (!r) return null;
      return {
        account_id,
        provider: { sku: r.sku, marketplaceId: r.marketplace_id },
        facts: {
          product_type: r.product_type,
          ...(r.status === 'DELETED' ? { deleted: { sku: r.sku, marketplace_id: r.marketplace_id } } : {}),
        },
      };
    },
    async advertisedListing(_account, marketplace_id, product) {
      if (product.sku) return live(history.reached([{ sku: product.sku, asin: null, marketplace_id }], t)[0]);
      if (!product.asin) return null;
      const found = history.withAsin(marketplace_id, product.asin, t).filter((r) => r.status !== 'DELETED');
      return found.length === 1 ? current(found[0]!) : null;
    },
    async hasAsin(account, marketplace_id, asin) {
      return (
        history.withAsin(marketplace_id, asin, t).some((r) => r.status !== 'DELETED') ||
        today.hasAsin(account, marketplace_id, asin)
      );
    },
    paused: async () => history.paused(t),
  };
}
