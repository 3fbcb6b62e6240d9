import type { Knex } from 'knex';
import {
  createAdsClient,
  createSellingClient,
  type AdsClient,
  type LwaClient,
  type SellingClient,
} from '../../marketplace/clients/index.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { connectionCredentials, type CredentialsLookup } from '../credentials.js';
import type { Clients } from './send.js';
import type { DispatchReceipt } from './receipts.js';

// The dispatcher's marketplace clients: each account's own credential set (the one its
// connections name, like the syncs), one attempt per request (the dispatcher records each
// answer and retries itself), and the access token fetched before StartDispatch, so a token
// failure is never taken for a lost reply.

export interface DispatchClientOptions {
  db: Knex;
  lwa: LwaClient;
  endpoints: { sellingApiUrl: string; adsApiUrl: string };
  credentials: CredentialsLookup;
  /** deadline of one request; past it the receipt is uncertain */
  timeoutMs: number;
}

interface AccountClients {
  selling: SellingClient;
  ads: AdsClient;
  sellingToken: string;
  adsToken: string;
  sellerId: string | null;
}

type ConnectionRow = { credentials?: string | null; provider_id: string } | null;

export function dispatchClients(o: DispatchClientOptions): {
  clientsFor(r: Pick<DispatchReceipt, 'account_id' | 'target' | 'provider'>, trx: Knex): Promise<Clients>;
} {
  const retry = { attempts: 1, timeoutMs: o.timeoutMs };
  // by credentials, not by account: an account reconnected with another credential set gets new
  // clients at its next request (its row is read every time: one primary-key lookup)
  const byCredentials = new Map<string, Pick<AccountClients, 'selling' | 'ads'>>();

  async function of(account_id: string, db: Knex): Promise<AccountClients> {
    const row: { selling: ConnectionRow; ads: ConnectionRow } | undefined = await db
      .withSchema(READ_MODEL_SCHEMA)
      .table('accounts')
      .where({ account_id })
      .first('selling', 'ads');
    // connections that name no credential set were made with the seller's
    const sellingToken = (await connectionCredentials(o.credentials, row?.selling)).selling_refresh_token ?? '';
    const adsToken = (await connectionCredentials(o.credentials, row?.ads)).ads_refresh_token ?? '';
    const key = JSON.stringify([sellingToken, adsToken]);
    let clients = byCredentials.get(key);
    if (!clients) {
      clients = {
        selling: createSellingClient({
          endpoint: o.endpoints.sellingApiUrl,
          lwa: o.lwa,
          refreshToken: sellingToken,
          retry,
        }),
        ads: createAdsClient({ endpoint: o.endpoints.adsApiUrl, lwa: o.lwa, refreshToken: adsToken, retry }),
      };
      byCredentials.set(key, clients);
    }
    return { ...clients, sellingToken, adsToken, sellerId: row?.selling?.provider_id ?? null };
  }

  return {
    async clientsFor(r, trx) {
      const c = await of(r.account_id, trx);
      const listing = r.target.type === 'Listing';
      await o.lwa.getAccessToken(listing ? c.sellingToken : c.adsToken);
      if (!listing) return { selling: c.selling, ads: c.ads, sellerId: '' };
      const sellerId = r.provider.sellerId ?? c.sellerId;
      if (!sellerId) throw new Error(`account ${r.account_id} has no selling connection in the read model`);
      return { selling: c.selling, ads: c.ads, sellerId };
    },
  };
}
