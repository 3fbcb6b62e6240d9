import type { Knex } from 'knex';
import { createAdsClient, createSellingClient, type AdsClient, type LwaClient } from '../../marketplace/clients/index.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import type { Clients } from './send.js';
import type { DispatchReceipt } from './receipts.js';

// The dispatcher's marketplace clients: the configured connection's credentials (like the
// syncs), one attempt per request (the dispatcher records each answer and retries itself), and
// the access token fetched before StartDispatch, so a token failure is never taken for a lost reply.

export interface DispatchClientOptions {
  db: Knex;
  lwa: LwaClient;
  endpoints: { sellingApiUrl: string; adsApiUrl: string };
  credentials: { selling_refresh_token?: string; ads_refresh_token?: string };
  /** deadline of one request; past it the receipt is uncertain */
  timeoutMs: number;
}

export function dispatchClients(o: DispatchClientOptions): { clientsFor(r: DispatchReceipt): Promise<Clients>; adsFor(r: DispatchReceipt): Promise<AdsClient> } {
  const retry = { attempts: 1, timeoutMs: o.timeoutMs };
  const sellingToken = o.credentials.selling_refresh_token ?? '';
  const adsToken = o.credentials.ads_refresh_token ?? '';
  const selling = createSellingClient({ endpoint: o.endpoints.sellingApiUrl, lwa: o.lwa, refreshToken: sellingToken, retry });
  const ads = createAdsClient({ endpoint: o.endpoints.adsApiUrl, lwa: o.lwa, refreshToken: adsToken, retry });
  const sellerIds = new Map<string, string>();

  async function sellerIdOf(r: DispatchReceipt): Promise<string> {
    if (r.provider.sellerId) return r.provider.sellerId;
    const known = sellerIds.get(r.account_id);
    if (known) return known;
    const row: { selling: { provider_id: string } | null } | undefined = await o.db.withSchema(READ_MODEL_SCHEMA).table('accounts').where({ account_id: r.account_id }).first('selling');
    if (!row?.selling) throw new Error(`account ${r.account_id} has no selling connection in the read model`);
    sellerIds.set(r.account_id, row.selling.provider_id);
    return row.selling.provider_id;
  }

  return {
    async clientsFor(r) {
      const listing = r.target.type === 'Listing';
      await o.lwa.getAccessToken(listing ? sellingToken : adsToken);
      return { selling, ads, sellerId: listing ? await sellerIdOf(r) : '' };
    },
    async adsFor() {
      return ads;
    },
  };
}
