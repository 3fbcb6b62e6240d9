import { loadAccounts } from '../../projections/accounts/queries.js';
import { recentChanges } from '../changelog.js';
import { readTool } from '../tool.js';

// Spec 2.1: every account of the caller with both connections (null when never made),
// and the recent product changes. The read model's AccountView is already that shape.
export const connectionStatus = readTool('connection_status', 'Connection status', {
  description:
    'Lists your accounts (their ids are the `account` argument of other tools), each with its entity type (seller or vendor), selling connection (type SellingPartner, with marketplaces) and advertising connection (type Advertiser, with profiles per country and currency); a connection is null when it was never made. A connection no longer in use has `active: false` and `inactive` saying since when, why (`operator`, or `authorization_refused` with `connected: false`) and until when its raw data (listings, inventory, catalog, ads entities) is kept. Also returns recent product changes. Start here.',
  input: {},
  async handler(_input, ctx) {
    return { accounts: await loadAccounts(ctx.db, ctx.userId), changelog: recentChanges() };
  },
});
