import type { Logger } from 'pino';
import { newId } from '../../src/domain/shared/ids.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/app.js';
import { loadAccount } from '../../src/projections/accounts/queries.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { SELLER_CREDENTIALS } from '../../src/workers/credentials.js';
import { listingsSync } from '../../src/workers/sync/listings.js';
import type { startBenchStack } from '../support.js';
import { oneLaneListings } from '../../test/support/offer-changes.js';

// The simulator's demo seller connected to a new account on the bench's stack and its listings
// synced (observed at `observedAt`), as account `accountId` (a new one unless given) whose
// connections name the credential set `credentials` (the operator's seller set unless given),
// with the listings offer events can name one at a time
// (the repricer they run is test/support/offer-changes.ts's, which the workers' test shares).

export const SELLER = 'Atzr|demo-seller';
export const ADVERTISER = 'Atzr|demo-advertiser';

export async function syncedSeller(
  stack: Awaited<ReturnType<typeof startBenchStack>>,
  logger: Logger,
  { observedAt = () => new Date(), accountId = newId(), credentials = SELLER_CREDENTIALS } = {},
) {
  const { db, store, projector, simulator } = stack;
  const endpoints = simulator.endpoints();
  const lwa = createLwaClient({ tokenUrl: endpoints.lwaTokenUrl, ...DEFAULT_LWA_CLIENT });
  const ctx = { store, metadata: { actor: { kind: 'worker' as const, id: 'bench' } } };
  const user = newId();
  await syncConnections(
    { ctx, lwa, endpoints, logger },
    {
      user_id: user,
      account_id: accountId,
      credentials,
      selling_refresh_token: SELLER,
      ads_refresh_token: ADVERTISER,
    },
  );
  await projector.whenCaughtUp();
  await listingsSync.run(
    { ctx, db, lwa, endpoints, credentials: () => ({ selling_refresh_token: SELLER }), logger, now: observedAt },
    accountId,
  );
  await projector.whenCaughtUp();
  const account = (await loadAccount(db, accountId))!;
  const listings = await oneLaneListings(db, accountId);
  return { ctx, lwa, endpoints, accountId, user, account, listings };
}
