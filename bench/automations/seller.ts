import type { Logger } from 'pino';
import { newId } from '../../src/domain/shared/ids.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/app.js';
import { loadAccount } from '../../src/projections/accounts/queries.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import type { startBenchStack } from '../support.js';

// The simulator's demo seller connected to a new account on the bench's stack and its listings
// synced (observed at `observedAt`), with the listings offer events can name one at a time.

export const SELLER = 'Atzr|demo-seller';

/** Undercuts the lowest price by a cent: one price patch per event. */
export const REPRICER = `
function handle(event, context) {
  const lowest = event.Payload.AnyOfferChangedNotification.Summary.LowestPrices?.[0]?.ListingPrice?.Amount;
  const price = Math.max(1, Math.round((Math.min(lowest, context.listing.price ?? lowest) - 0.01) * 100) / 100);
  context.mutations.push({ target: context.listing, action: 'update', payload: { productType: 'PRODUCT',
    patches: [{ op: 'merge', path: '/attributes/purchasable_offer', value: [{
      marketplace_id: context.listing.marketplace.id, currency: context.listing.currencyCode, audience: 'ALL',
      our_price: [{ schedule: [{ value_with_tax: price }] }] }] }] } });
}`;

export async function syncedSeller(
  stack: Awaited<ReturnType<typeof startBenchStack>>,
  logger: Logger,
  observedAt: () => Date = () => new Date(),
) {
  const { db, store, projector, simulator } = stack;
  const endpoints = simulator.endpoints();
  const lwa = createLwaClient({ tokenUrl: endpoints.lwaTokenUrl, ...DEFAULT_LWA_CLIENT });
  const ctx = { store, metadata: { actor: { kind: 'worker' as const, id: 'bench' } } };
  const accountId = newId();
  const user = newId();
  await syncConnections(
    { ctx, lwa, endpoints, logger },
    {
      user_id: user,
      account_id: accountId,
      credentials: 'seller',
      selling_refresh_token: SELLER,
      ads_refresh_token: 'Atzr|demo-advertiser',
    },
  );
  await projector.whenCaughtUp();
  await listingsSync.run(
    { ctx, db, lwa, endpoints, credentials: () => ({ selling_refresh_token: SELLER }), logger, now: observedAt },
    accountId,
  );
  await projector.whenCaughtUp();
  const account = (await loadAccount(db, accountId))!;
  // listings (not deleted) whose ASIN no other listing of their marketplace shares, in every
  // marketplace: each event reaches one listing, one run, and the events spread over the catalog
  const listings: Array<{ asin: string; marketplace_id: string }> = (
    await db.raw(
      `select c.asin, c.marketplace_id from rm.listing_current c
       join rm.listings l on l.account_id = c.account_id and l.scope = c.scope and l.page = c.page and l.row = c.row
       where c.account_id = ? and coalesce(l.status, '') <> 'DELETED' and (c.marketplace_id, c.asin) in
         (select marketplace_id, asin from rm.listing_current where account_id = ? group by 1, 2 having count(*) = 1)
       order by c.marketplace_id, c.asin`,
      [accountId, accountId],
    )
  ).rows;
  return { ctx, lwa, endpoints, accountId, user, account, listings };
}
