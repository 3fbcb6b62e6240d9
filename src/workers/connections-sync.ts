import type { Logger } from 'pino';
import { executeAccountCommand } from '../commands/accounts.js';
import { registerUser } from '../commands/users.js';
import type { CommandContext } from '../commands/handler.js';
import type { ObservedProfile } from '../domain/account/decide.js';
import type { Marketplace } from '../domain/account/events.js';
import type { Credentials } from './credentials.js';
import {
  createAdsClient,
  createSellingClient,
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

/**
 * Reads the account's connections from the marketplace through the real clients and
 * records what changed as account events. Running it twice records nothing new.
 */
export async function syncConnections(
  deps: { ctx: CommandContext; lwa: LwaClient; endpoints: MarketplaceEndpoints; logger: Logger },
  target: ConnectionSyncTarget,
): Promise<{ recorded: number }> {
  const { ctx, lwa, endpoints } = deps;
  const profiles = target.ads_refresh_token
    ? await createAdsClient({
        endpoint: endpoints.adsApiUrl,
        lwa,
        refreshToken: target.ads_refresh_token,
      }).listProfiles()
    : [];
  const selling = target.selling_refresh_token
    ? createSellingClient({ endpoint: endpoints.sellingApiUrl, lwa, refreshToken: target.selling_refresh_token })
    : null;
  const [participations, sellerAccount] = selling
    ? await Promise.all([selling.getMarketplaceParticipations(), selling.getAccount()])
    : [[], null];
  const vendorProfile = profiles.find((p) => p.accountInfo.type === 'vendor');
  const sellerProfile = profiles.find((p) => p.accountInfo.type === 'seller');
  const name =
    sellerAccount?.business?.name ??
    participations[0]?.storeName ??
    sellerProfile?.accountInfo.name ??
    vendorProfile?.accountInfo.name ??
    target.account_id;

  if (target.register_user_as) await registerUser(ctx, target.user_id, target.register_user_as);
  const { account_id, credentials } = target;
  let recorded = await executeAccountCommand(ctx, {
    type: 'RegisterAccount',
    account_id,
    user_id: target.user_id,
    name,
    // a vendor may hold a selling-API authorization too (vendor reports): its ads profile says what it is
    entity_type: vendorProfile && !sellerProfile ? 'vendor' : 'seller',
  });
  if (selling) {
    const provider_id = target.selling_partner_id ?? sellerProfile?.accountInfo.id ?? account_id;
    recorded += await executeAccountCommand(ctx, { type: 'ConnectSelling', account_id, provider_id, credentials });
    recorded += await executeAccountCommand(ctx, {
      type: 'ObserveSellingParticipations',
      account_id,
      marketplaces: participations.map(toMarketplace),
    });
  }
  if (target.ads_refresh_token) {
    const provider_id = (sellerProfile ?? vendorProfile ?? profiles[0])?.accountInfo.id ?? account_id;
    recorded += await executeAccountCommand(ctx, { type: 'ConnectAdvertising', account_id, provider_id, credentials });
    recorded += await executeAccountCommand(ctx, {
      type: 'ObserveAdvertisingProfiles',
      account_id,
      profiles: profiles.map(toObservedProfile),
    });
  }
  deps.logger.info({ account_id, recorded }, 'connections synced');
  return { recorded };
}
