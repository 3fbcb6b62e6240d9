import type { AccountView } from '../../projections/accounts/queries.js';

// The SellingPartner scope (spec 2.12): the account-level selling events get the selling
// connection under `selling_partner`, whose keys are snake_case unlike every other context key:
// live automations read them, so they are never renamed (spec 9.5).

/** Null when the account has no selling connection (no selling event can reach it). */
export function sellingPartnerContext(account: AccountView) {
  const selling = account.selling;
  if (!selling) return null;
  return {
    selling_partner: {
      id: selling.id,
      type: 'SellingPartner',
      seller_id: selling.provider_id,
      account_id: account.id,
      account_name: account.name,
      marketplaces: selling.marketplaces.map((m) => ({
        marketplace_id: m.marketplace_id,
        country_code: m.country_code,
        currency: m.currency,
        participating: m.participating,
      })),
    },
  };
}
