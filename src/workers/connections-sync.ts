import type { Logger } from 'pino';
import { executeAccountCommand } from '../commands/account/execute.js';
import { registerUser } from '../commands/user/execute.js';
import { aggregateStream, type CommandContext } from '../commands/shared/handler.js';
import { accountDecider, type ObservedProfile } from '../domain/account/decide.js';
import type { ConnectionKind, Marketplace } from '../domain/account/events.js';
import type { AccountState } from '../domain/account/state.js';
import type { Credentials } from './credentials.js';
import {
  createAdsClient,
  createSellingClient,
  MarketplaceError,
  type LwaClient,
  type MarketplaceParticipation,
  type Profile,
} from '../marketplace/clients/index.js';

export interface MarketplaceEndpoints {
  sellingApiUrl: string;
  adsApiUrl: string;
}

/** What a connection sync needs to know about one account: the credentials of the configured
 * set named `credentials`, the name the connection events record. */
export interface ConnectionSyncTarget extends Credentials {
  user_id: string;
  /** registers the user under this name first (the demo user); others are registered already */
  register_user_as?: string;
  account_id: string;
  credentials: string;
  /** the operator's reconnection: reads inactive connections too, and makes them active again */
  reconnect?: boolean;
}

const toMarketplace = (p: MarketplaceParticipation): Marketplace => ({
  marketplace_id: p.marketplace.id,
  country_code: p.marketplace.countryCode,
  name: p.marketplace.name,
  currency: p.marketplace.defaultCurrencyCode,
  domain_name: p.marketplace.domainName,
  participating: p.participation.isParticipating,
});

const toObservedProfile = (p: Profile): ObservedProfile => ({
  provider_profile_id: String(p.profileId),
  marketplace_id: p.accountInfo.marketplaceStringId,
  country_code: p.countryCode,
  currency: p.currencyCode,
  timezone: p.timezone,
  account_name: p.accountInfo.name ?? '',
  account_id: p.accountInfo.id,
  valid_payment_method: p.accountInfo.validPaymentMethod ?? false,
});

/** What a connection read gives when the marketplace refused the connection's authorization. */
const REFUSED = Symbol('refused');

/**
 * The read's answer, or REFUSED when LWA answered `invalid_grant` for the refresh token: the
 * authorization is revoked or expired for good (docs/decisions/062-inactive-connections.md). Every
 * other failure (our client credentials, throttling, an outage) is the job's, retried as usual.
 */
async function unlessRefused<T>(read: () => Promise<T>): Promise<T | typeof REFUSED> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof MarketplaceError && err.code === 'invalid_grant') return REFUSED;
    throw err;
  }
}

const hasActiveConnection = (state: AccountState) =>
  (state.selling !== null && !state.selling.inactive) || (state.ads !== null && !state.ads.inactive);

/**
 * Reads the account's connections from the marketplace through the real clients and
 * records what changed as account events. Running it twice records nothing new.
 *
 * An inactive connection is not read, unless this is the operator's reconnection. An active
 * connection whose authorization the marketplace refuses for good is recorded inactive; when it
 * refuses a first connection or a reconnection, the job fails naming it, after recording the
 * other connection. `active` says whether the account has an active connection afterwards (its
 * data syncs are scheduled then).
 */
export async function syncConnections(
  deps: { ctx: CommandContext; lwa: LwaClient; endpoints: MarketplaceEndpoints; logger: Logger; now?: () => Date },
  target: ConnectionSyncTarget,
): Promise<{ recorded: number; active: boolean }> {
  const { ctx, lwa, endpoints } = deps;
  const { account_id, credentials, reconnect = false } = target;
  const before = (await aggregateStream(ctx.store, accountDecider, account_id)).state;
  const reads = (kind: ConnectionKind, token: string | undefined): token is string =>
    !!token && (reconnect || !before[kind]?.inactive);
  /** refused connections: an active one is recorded inactive; a new one or one being reconnected fails the job */
  const refused: ConnectionKind[] = [];
  const accepted = <T>(kind: ConnectionKind, answer: T | typeof REFUSED | null): answer is T => {
    if (answer === REFUSED) refused.push(kind);
    return answer !== REFUSED && answer !== null;
  };

  const adsAnswer = reads('ads', target.ads_refresh_token)
    ? await unlessRefused(() =>
        createAdsClient({ endpoint: endpoints.adsApiUrl, lwa, refreshToken: target.ads_refresh_token! }).listProfiles(),
      )
    : null;
  const profiles = accepted('ads', adsAnswer) ? adsAnswer : null;
  const selling = reads('selling', target.selling_refresh_token)
    ? createSellingClient({ endpoint: endpoints.sellingApiUrl, lwa, refreshToken: target.selling_refresh_token! })
    : null;
  const sellingAnswer = selling
    ? await unlessRefused(() => Promise.all([selling.getMarketplaceParticipations(), selling.getAccount()]))
    : null;
  const [participations, sellerAccount] = accepted('selling', sellingAnswer) ? sellingAnswer : [null, null];
  const vendorProfile = profiles?.find((p) => p.accountInfo.type === 'vendor');
  const sellerProfile = profiles?.find((p) => p.accountInfo.type === 'seller');
  const name =
    sellerAccount?.business?.name ??
    participations?.[0]?.storeName ??
    sellerProfile?.accountInfo.name ??
    vendorProfile?.accountInfo.name ??
    account_id;

  if (target.register_user_as) await registerUser(ctx, target.user_id, target.register_user_as);
  let recorded = await executeAccountCommand(ctx, {
    type: 'RegisterAccount',
    account_id,
    user_id: target.user_id,
    name,
    // a vendor may hold a selling-API authorization too (vendor reports): its ads profile says what it is
    entity_type: vendorProfile && !sellerProfile ? 'vendor' : 'seller',
  });
  if (participations) {
    // the seller profiles name the partner when the advertising connection was read; else it is the one recorded
    const provider_id =
      target.selling_partner_id ?? sellerProfile?.accountInfo.id ?? before.selling?.provider_id ?? account_id;
    recorded += await executeAccountCommand(ctx, {
      type: 'ConnectSelling',
      account_id,
      provider_id,
      credentials,
      reconnect,
    });
    recorded += await executeAccountCommand(ctx, {
      type: 'ObserveSellingParticipations',
      account_id,
      marketplaces: participations.map(toMarketplace),
    });
  }
  if (profiles) {
    const provider_id =
      (sellerProfile ?? vendorProfile ?? profiles[0])?.accountInfo.id ?? before.ads?.provider_id ?? account_id;
    recorded += await executeAccountCommand(ctx, {
      type: 'ConnectAdvertising',
      account_id,
      provider_id,
      credentials,
      reconnect,
    });
    recorded += await executeAccountCommand(ctx, {
      type: 'ObserveAdvertisingProfiles',
      account_id,
      profiles: profiles.map(toObservedProfile),
    });
  }
  const at = (deps.now?.() ?? new Date()).toISOString();
  const wasActive = (kind: ConnectionKind) => before[kind] !== null && !before[kind].inactive;
  for (const connection of refused.filter(wasActive)) {
    recorded += await executeAccountCommand(ctx, {
      type: 'DeactivateConnection',
      account_id,
      connection,
      cause: 'authorization_refused',
      detail: `Login with Amazon refused the refresh token of credential set ${credentials} (invalid_grant): the authorization was revoked or has expired; reconnect the account once it is authorized again`,
      at,
    });
  }
  const notMade = refused.filter((kind) => !wasActive(kind));
  if (notMade.length > 0)
    throw new MarketplaceError({
      status: 400,
      code: 'invalid_grant',
      message: `Login with Amazon refuses the ${notMade.join(' and ')} authorization of credential set ${credentials} (invalid_grant); ${reconnect ? 'it stays inactive' : 'nothing was connected for it'}`,
      retryable: false,
    });
  const active = hasActiveConnection((await aggregateStream(ctx.store, accountDecider, account_id)).state);
  deps.logger.info({ account_id, recorded, refused, active }, 'connections synced');
  return { recorded, active };
}
