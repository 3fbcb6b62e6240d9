import { createAdsClient, type AdsClient } from '../../marketplace/clients/index.js';
import { READ_MODEL_SCHEMA } from '../../projections/projection.js';
import { connectionCredentials } from '../credentials.js';
import type { SyncDeps } from './job.js';

// What every advertising sync starts from: the account's advertising profiles as the
// accounts read model has them, and an ads client with the connection's credentials.

export interface SyncProfile {
  provider_profile_id: string;
  marketplace_id: string;
  currency_code: string;
  timezone: string;
}

export interface AdsContext {
  profiles: SyncProfile[];
  client: AdsClient;
}

/**
 * Null when there is nothing to sync: no advertising connection, an inactive one, no credentials, or a vendor
 * account (vendor advertising is not synced yet). Throws while the account or its
 * profiles aren't in the read model yet, so the queue retries.
 */
export async function adsContext(deps: SyncDeps, account_id: string): Promise<AdsContext | null> {
  const rm = () => deps.db.withSchema(READ_MODEL_SCHEMA);
  const account: { entity_type: string; ads: { credentials?: string | null; inactive?: unknown } | null } | undefined =
    await rm().table('accounts').where({ account_id }).first('entity_type', 'ads');
  if (!account) throw new Error(`account ${account_id} is not in the read model yet`);
  const refreshToken = (await connectionCredentials(deps.credentials, account.ads)).ads_refresh_token;
  if (!account.ads || account.ads.inactive || !refreshToken || account.entity_type !== 'seller') return null;
  const profiles: SyncProfile[] = await rm()
    .table('advertising_profiles')
    .where({ account_id })
    .orderBy('provider_profile_id')
    .select('provider_profile_id', 'marketplace_id', 'currency_code', 'timezone');
  if (profiles.length === 0)
    throw new Error(`advertising profiles of account ${account_id} are not in the read model yet`);
  return { profiles, client: createAdsClient({ endpoint: deps.endpoints.adsApiUrl, lwa: deps.lwa, refreshToken }) };
}
