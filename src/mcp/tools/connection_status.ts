import { z } from 'zod';
import { EntityType, InactiveCause } from '../../domain/account/events.js';
import { loadAccounts } from '../../projections/accounts/queries.js';
import { recentChanges } from '../changelog.js';
import { readTool } from '../tool.js';

// Spec 2.1: every account of the caller with both connections (null when never made),
// and the recent product changes. The read model's AccountView is already that shape.

const inactive = z
  .object({
    since: z.string().describe('ISO 8601 time it stopped being used'),
    cause: InactiveCause.describe(
      'operator (deactivated by an operator), authorization_refused, or disconnected (by the seller, on the connections page)',
    ),
    detail: z.string().describe('why, in words'),
    raw_data_kept_until: z.string().describe('ISO 8601; its raw provider data is kept until then (30 days)'),
  })
  .nullable()
  .describe('null while the connection is in use');

/** What both connections carry (spec 2.1). */
const connection = {
  connected: z.boolean().describe('authorized with the marketplace'),
  active: z.boolean().describe('connected and billing in good standing'),
  inactive,
  id: z.string().describe('the local id: the target id for connection-level reads'),
  provider_id: z.string().describe("the marketplace's id of the seller, vendor or advertiser"),
};

const account = z.object({
  id: z.string().describe('the account id: the `account` argument of other tools'),
  name: z.string(),
  entity_type: EntityType.describe('seller, or vendor (no listings, no seller sales)'),
  selling: z
    .object({
      ...connection,
      type: z.literal('SellingPartner').describe('the target type of the selling connection'),
      marketplaces: z
        .array(
          z.object({
            marketplace_id: z.string(),
            country_code: z.string().describe('two letters'),
            name: z.string(),
            currency: z.string().describe('ISO 4217 code'),
            domain_name: z.string(),
            participating: z.boolean().describe('the seller participates (sells) in it'),
          }),
        )
        .describe('the marketplaces of the selling account'),
    })
    .nullable()
    .describe('the selling connection; null when never made'),
  ads: z
    .object({
      ...connection,
      type: z.literal('Advertiser').describe('the target type of the advertising connection'),
      profiles: z
        .array(
          z.object({
            id: z.string().describe('the local profile id (an AdvertisingProfile target id)'),
            provider_profile_id: z.string().describe("the marketplace's profile id"),
            marketplace_id: z.string(),
            country_code: z.string().describe('two letters'),
            currency: z.string().describe('ISO 4217 code of every budget and bid under the profile'),
            timezone: z.string().describe('IANA time zone name'),
            account_name: z.string().describe("the advertising account's name"),
            account_id: z.string().describe("the advertising account's id at the marketplace"),
          }),
        )
        .describe('advertising profiles, one per country and currency'),
    })
    .nullable()
    .describe('the advertising connection; null when never made'),
});

export const connectionStatus = readTool('connection_status', 'Connection status', {
  description:
    'Lists your accounts (their ids are the `account` argument of other tools), each with its entity type (seller or vendor), selling connection (type SellingPartner, with marketplaces) and advertising connection (type Advertiser, with profiles per country and currency); a connection is null when it was never made. A connection no longer in use has `active: false` and `inactive` saying since when, why (`operator`, or `authorization_refused` or `disconnected` with `connected: false`) and until when its raw data (listings, inventory, catalog, ads entities) is kept. Also returns recent product changes. Start here.',
  input: {},
  output: z.object({
    accounts: z.array(account).describe('every account of yours, oldest first'),
    changelog: z
      .array(
        z.object({
          date: z.string().describe('ISO date'),
          version: z.string(),
          text: z.string(),
        }),
      )
      .describe('recent product changes, newest first (the whole list: resource://service/changelog.md)'),
  }),
  async handler(_input, ctx) {
    return { accounts: await loadAccounts(ctx.db, ctx.userId), changelog: recentChanges() };
  },
});
