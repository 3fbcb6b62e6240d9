import type { Config } from '../infra/config.js';
import type { Knex } from 'knex';
import { createVault, isVaultReference, keyringFrom } from '../secrets/vault.js';

// Marketplace credentials live in configuration (the operator's sets) or in the secret vault (a
// connection a seller made on the connections pages). An account's connection events name the
// credential set it was connected with (`seller`, `vendor`) or the vault reference of its
// secrets (`vault:<account id>`); every sync looks that name up here at run time, so no secret
// is ever written to the event log.

export interface Credentials {
  selling_refresh_token?: string;
  ads_refresh_token?: string;
  /** known from the authorization; falls back to the seller profiles' accountInfo.id */
  selling_partner_id?: string;
}

/** The credential set a name stands for; undefined when configuration (or the vault) has no such set. */
export type CredentialsLookup = (name: string) => Credentials | undefined | Promise<Credentials | undefined>;

/** SELLING_REFRESH_TOKEN, ADS_REFRESH_TOKEN, SELLING_PARTNER_ID. */
export const SELLER_CREDENTIALS = 'seller';
/** VENDOR_SELLING_REFRESH_TOKEN, VENDOR_ADS_REFRESH_TOKEN, VENDOR_SELLING_PARTNER_ID. */
export const VENDOR_CREDENTIALS = 'vendor';

const set = (selling: string | undefined, ads: string | undefined, partner: string | undefined): Credentials | null =>
  selling || ads
    ? {
        ...(selling ? { selling_refresh_token: selling } : {}),
        ...(ads ? { ads_refresh_token: ads } : {}),
        ...(partner ? { selling_partner_id: partner } : {}),
      }
    : null;

/** The configured credential sets by name; a set without any refresh token is not configured. */
export function credentialSets(config: Config): Map<string, Credentials> {
  const sets = new Map<string, Credentials>();
  const seller = set(config.SELLING_REFRESH_TOKEN, config.ADS_REFRESH_TOKEN, config.SELLING_PARTNER_ID);
  const vendor = set(
    config.VENDOR_SELLING_REFRESH_TOKEN,
    config.VENDOR_ADS_REFRESH_TOKEN,
    config.VENDOR_SELLING_PARTNER_ID,
  );
  if (seller) sets.set(SELLER_CREDENTIALS, seller);
  if (vendor) sets.set(VENDOR_CREDENTIALS, vendor);
  return sets;
}

/** The lookup the worker's syncs use: a vault reference is opened from the vault (none when it
 * has no keys: docs/decisions/095-secret-vault.md), any other name is a configured set. */
export function credentialsLookup(config: Config, db: Knex): CredentialsLookup {
  const sets = credentialSets(config);
  const keyring = keyringFrom(config);
  const vault = keyring && createVault(db, keyring);
  return (name) => (isVaultReference(name) ? vault?.credentials(name) : sets.get(name));
}

/** The credentials of a connection as the accounts read model holds it (`credentials` names
 * the set); connections recorded before they named one were made with the seller's. */
export const connectionCredentials = async (
  lookup: CredentialsLookup,
  connection: { credentials?: string | null } | null | undefined,
): Promise<Credentials> => (await lookup(connection?.credentials ?? SELLER_CREDENTIALS)) ?? {};
