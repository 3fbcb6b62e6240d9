import type { Knex } from 'knex';
import { DomainError } from '../../domain/shared/errors.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { hasAsin, resolveTarget } from '../../projections/admission/queries.js';

// A live read's target (spec 4.9: "shape not shown beyond a type and id";
// docs/decisions/107-live-read-targets.md): found among the caller's own accounts only (anything
// else, foreign or missing, is `target_not_found`), and what it fixes of the provider call: the
// connection, the seller, the marketplace, the advertising profile, the SKU or ASIN.

export const LIVE_READ_TARGET_TYPES = [
  'SellingPartner',
  'Inventory',
  'Listing',
  'AmazonResource',
  'Advertiser',
  'AdvertisingProfile',
] as const;
export type LiveReadTargetType = (typeof LIVE_READ_TARGET_TYPES)[number];

/** What a target fixes; the rest of a call comes from the caller's parameters. */
export interface ReadScope {
  account: AccountView;
  connection: 'selling' | 'ads';
  sellerId?: string;
  marketplaceId?: string;
  /** the provider's profile id (Amazon-Advertising-API-Scope) */
  profileId?: string;
  /** the provider's advertiser (the profiles' accountInfo.id) */
  advertiserId?: string;
  sku?: string;
  asin?: string;
}

const COMPOUND = /^([0-9a-f-]{36}):([A-Z0-9]{6,20})(?::([A-Z0-9]{10}))?$/i;

/** The target's scope, or `target_not_found`. */
export async function resolveReadTarget(
  db: Knex,
  accounts: readonly AccountView[],
  target: { type: string; id: string },
): Promise<ReadScope> {
  const scope = await find(db, accounts, target);
  if (!scope)
    throw new DomainError(
      'target_not_found',
      `target: no ${target.type} with id '${target.id}' on your accounts (${idHint(target.type)})`,
      { argument: 'target' },
    );
  return scope;
}

function idHint(type: string): string {
  switch (type) {
    case 'SellingPartner':
      return 'a SellingPartner id is an account id from connection_status with a selling connection';
    case 'Advertiser':
      return 'an Advertiser id is an account id from connection_status with an advertising connection';
    case 'Inventory':
      return "an Inventory id is '<account id>:<marketplace id>' for a marketplace the account sells in";
    case 'AmazonResource':
      return "an AmazonResource id is '<account id>:<marketplace id>:<ASIN>' for an ASIN the account lists or advertises there";
    case 'Listing':
      return 'a Listing id is a local id from list_listings';
    case 'AdvertisingProfile':
      return 'an AdvertisingProfile id is a local profile id from connection_status or list_ads_entities';
    default:
      return `target types: ${LIVE_READ_TARGET_TYPES.join(', ')}`;
  }
}

async function find(
  db: Knex,
  accounts: readonly AccountView[],
  target: { type: string; id: string },
): Promise<ReadScope | null> {
  const id = target.id.trim();
  const byId = (accountId: string) => accounts.find((a) => a.id === accountId.toLowerCase());
  const selling = (account: AccountView | undefined) =>
    account?.selling ? { account, connection: 'selling' as const, sellerId: account.selling.provider_id } : null;
  switch (target.type) {
    case 'SellingPartner':
      return selling(byId(id));
    case 'Advertiser': {
      const account = byId(id);
      if (!account?.ads) return null;
      const advertiserId = account.ads.profiles[0]?.account_id;
      return { account, connection: 'ads', ...(advertiserId ? { advertiserId } : {}) };
    }
    case 'Inventory':
    case 'AmazonResource': {
      const parts = COMPOUND.exec(id);
      if (!parts || (target.type === 'Inventory') !== (parts[3] === undefined)) return null;
      const scope = selling(byId(parts[1]!));
      const marketplaceId = parts[2]!.toUpperCase();
      if (!scope || !scope.account.selling!.marketplaces.some((m) => m.marketplace_id === marketplaceId)) return null;
      if (target.type === 'Inventory') return { ...scope, marketplaceId };
      const asin = parts[3]!.toUpperCase();
      return (await hasAsin(db, scope.account.id, marketplaceId, asin)) ? { ...scope, marketplaceId, asin } : null;
    }
    case 'Listing':
    case 'AdvertisingProfile': {
      const resolved = await resolveTarget(
        db,
        accounts.map((a) => a.id),
        { type: target.type, id },
      );
      const account = resolved && byId(resolved.account_id);
      if (!resolved || !account) return null;
      const p = resolved.provider;
      if (target.type === 'Listing') {
        const scope = selling(account);
        return scope && { ...scope, marketplaceId: p.marketplaceId!, sku: p.sku! };
      }
      const profile = account.ads?.profiles.find((x) => x.provider_profile_id === p.profileId);
      if (!profile) return null;
      return {
        account,
        connection: 'ads',
        profileId: profile.provider_profile_id,
        marketplaceId: profile.marketplace_id,
        advertiserId: profile.account_id,
      };
    }
    default:
      return null;
  }
}
