import { z } from 'zod';
import type { EventUnion } from '../shared/decider.js';

export const EntityType = z.enum(['seller', 'vendor']);

export const Marketplace = z.object({
  marketplace_id: z.string(),
  country_code: z.string(),
  name: z.string(),
  currency: z.string().length(3),
  domain_name: z.string(),
  participating: z.boolean(),
});

export const AdvertisingProfile = z.object({
  /** local id: stable for (account, provider profile id) */
  id: z.uuid(),
  provider_profile_id: z.string(),
  marketplace_id: z.string(),
  country_code: z.string(),
  currency: z.string().length(3),
  timezone: z.string(),
  account_name: z.string(),
  account_id: z.string(),
  valid_payment_method: z.boolean(),
});

export const AccountRegistered = z.object({
  account_id: z.uuid(),
  user_id: z.uuid(),
  name: z.string().min(1),
  entity_type: EntityType,
});
/** A selling or an advertising connection. `credentials` names the configured credential set the
 * connection was made with (never the secrets themselves); connections recorded before it
 * existed were made with `seller`'s. */
const Connected = z.object({
  account_id: z.uuid(),
  connection_id: z.uuid(),
  provider_id: z.string(),
  credentials: z.string().optional(),
});
export const SellingConnected = Connected;
export const SellingParticipationsObserved = z.object({ account_id: z.uuid(), marketplaces: z.array(Marketplace) });
export const AdvertisingConnected = Connected;
export const AdvertisingProfilesObserved = z.object({ account_id: z.uuid(), profiles: z.array(AdvertisingProfile) });

/** The account's two connections: selling (`SellingPartner`) and advertising (`Advertiser`). */
export const ConnectionKind = z.enum(['selling', 'ads']);
/** Why a connection went inactive: an operator said so, the marketplace refused its
 * authorization for good (LWA answered `invalid_grant` for its refresh token), or the seller
 * disconnected it on the connections page (its secret is erased). */
export const InactiveCause = z.enum(['operator', 'authorization_refused', 'disconnected']);
/** The connection stops being used (no syncs) from `at`; its raw provider data is kept 30 days
 * from that day (spec 8). A reconnection (`SellingConnected` / `AdvertisingConnected` again)
 * makes it active and stops the clock. */
export const ConnectionDeactivated = z.object({
  account_id: z.uuid(),
  connection: ConnectionKind,
  connection_id: z.uuid(),
  cause: InactiveCause,
  detail: z.string(),
  at: z.iso.datetime(),
});

export type Marketplace = z.infer<typeof Marketplace>;
export type AdvertisingProfile = z.infer<typeof AdvertisingProfile>;
export type EntityType = z.infer<typeof EntityType>;
export type ConnectionKind = z.infer<typeof ConnectionKind>;
export type InactiveCause = z.infer<typeof InactiveCause>;

export const accountEventSchemas = {
  AccountRegistered,
  SellingConnected,
  SellingParticipationsObserved,
  AdvertisingConnected,
  AdvertisingProfilesObserved,
  ConnectionDeactivated,
} as const;
export type AccountEvent = EventUnion<typeof accountEventSchemas>;
