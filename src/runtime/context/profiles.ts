import type { AccountView } from '../../projections/accounts/queries.js';

/** The account's advertising profiles in a marketplace (a Listing context's, spec 2.6). */
export const profilesIn = (account: AccountView, marketplace_id: string) =>
  (account.ads?.profiles ?? []).filter((p) => p.marketplace_id === marketplace_id);

/** Their ids. */
export const profileIdsIn = (account: AccountView, marketplace_id: string) =>
  profilesIn(account, marketplace_id).map((p) => p.id);
