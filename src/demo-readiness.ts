import { DEMO_USER_ID } from './domain/shared/ids.js';
import type { Knex } from './infra/db.js';
import type { Logger } from './infra/logger.js';
import { pollUntil } from './infra/poll.js';
import { loadAccounts } from './projections/accounts/queries.js';
import { searchListings } from './projections/observed/listings-search.js';
import type { Credentials } from './workers/credentials.js';

// `/demo/mcp` is where a new user starts, so its first answer should already work, dry runs
// included: a canned Listing-scope sample names one of the demo seller's listings, an advertising
// one a profile of the account's, a selling one its selling connection. An api that runs beside
// the worker (as `npm start` does) therefore listens once the read models show the demo's accounts
// with the connections their credentials give and the seller with a listing: a few seconds after
// a clean start, at once on a restart. A marketplace that refuses (or a seller with no listing)
// holds it back DEMO_READY_WITHIN_MS at most; then it serves what there is.

const DEMO_READY_WITHIN_MS = 60_000;

export interface DemoAccount {
  account_id: string;
  credentials: Credentials;
}

/** Whether the read models hold what the demo's canned dry runs need. */
async function demoReady(db: Knex, demo: readonly DemoAccount[]): Promise<boolean> {
  const accounts = await loadAccounts(db, DEMO_USER_ID);
  for (const { account_id, credentials } of demo) {
    const account = accounts.find((a) => a.id === account_id);
    if (!account) return false;
    if (credentials.selling_refresh_token && !account.selling?.marketplaces.length) return false;
    if (credentials.ads_refresh_token && !account.ads?.profiles.length) return false;
    if (account.entity_type === 'seller' && account.selling) {
      const { rows } = await searchListings(db, { account_ids: [account_id], limit: 1 });
      if (rows.length === 0) return false;
    }
  }
  return true;
}

/** Waits until the demo is ready or `withinMs` have passed, saying which in the log. */
export async function waitForDemo(
  db: Knex,
  demo: readonly DemoAccount[],
  logger: Logger,
  withinMs = DEMO_READY_WITHIN_MS,
): Promise<void> {
  if (demo.length === 0 || (await demoReady(db, demo))) return;
  const started = Date.now();
  logger.info('connecting the demo and reading its listings before serving');
  if (await pollUntil(() => demoReady(db, demo), withinMs, 200))
    logger.info({ ms: Date.now() - started }, 'demo ready');
  else logger.warn({ within_ms: withinMs }, 'the demo connections or listings have not synced yet; serving anyway');
}
