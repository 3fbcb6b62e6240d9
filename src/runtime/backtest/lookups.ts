import { readModelLookups, type AdmissionLookups } from '../../commands/admission/lookups.js';
import type { Knex } from '../../infra/db.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import type { CurrentListing, ResolvedTarget } from '../../projections/admission/queries.js';
import type { EntityType } from '../../projections/observed/ads-queries.js';
import type { LoggedEntity } from './ads.js';
import type { ListingRecord } from '../../projections/observed/listings-search.js';
import type { AccountHistory } from './history.js';

// What a backtest run's admission looks up, as the account's log had it at the event's time: its
// listings (a listing deleted or gone since is still the target it was then), its advertising
// entities and the operator's switch. An advertising target the log did not show then is looked up
// today: one a live run created before the ads sync read it is known only by its receipt.

export function lookupsAsOf(
  db: Knex,
  history: AccountHistory,
  account: AccountView,
  t: number,
  /** the advertising entity with that local id as the log had it at `t` */
  logged: (id: string) => LoggedEntity | null,
): AdmissionLookups {
  const account_id = account.id;
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
      if (target.type !== 'Listing') {
        const found = accountIds.includes(account_id) ? logged(target.id.toLowerCase()) : null;
        return found?.type === target.type ? adsTarget(account, found) : today.resolveTarget(accountIds, target);
      }
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

/** The provider ids an advertising request names, as resolveTarget answers them from the read models. */
function adsTarget(account: AccountView, { type, row }: LoggedEntity): ResolvedTarget {
  const profile = account.ads?.profiles.find((p) => p.provider_profile_id === row.provider_profile_id);
  const str = (v: unknown) => (v === null || v === undefined ? undefined : String(v));
  const own: Record<EntityType, Record<string, string | undefined>> = {
    Campaign: { campaignId: str(row.provider_id) },
    AdGroup: { campaignId: str(row.provider_campaign_id), adGroupId: str(row.provider_id) },
    Ad: {
      campaignId: str(row.provider_campaign_id),
      adGroupId: str(row.provider_ad_group_id),
      adId: str(row.provider_id),
    },
    Target: {
      campaignId: str(row.provider_campaign_id),
      adGroupId: str(row.provider_ad_group_id),
      targetId: str(row.provider_id),
      targetKind: str(row.kind),
    },
  };
  const provider = Object.fromEntries(
    Object.entries({
      profileId: str(row.provider_profile_id),
      countryCode: profile?.country_code,
      marketplaceId: profile?.marketplace_id,
      ...own[type],
    }).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const facts =
    type === 'Ad'
      ? { advertised: { sku: (row.sku as string | null) ?? null, asin: (row.asin as string | null) ?? null } }
      : type === 'Target'
        ? { negative: row.negative as boolean }
        : {};
  return { account_id: account.id, provider, facts };
}
