import type { Knex } from 'knex';
import type { EntityType, Marketplace } from '../../domain/account/events.js';
import { READ_MODEL_SCHEMA } from '../projection.js';

export interface ProfileView {
  id: string;
  provider_profile_id: string;
  marketplace_id: string;
  country_code: string;
  currency: string;
  timezone: string;
  account_name: string;
  account_id: string;
}

export interface AccountView {
  id: string;
  name: string;
  entity_type: EntityType;
  selling: null | {
    connected: boolean;
    active: boolean;
    id: string;
    type: 'SellingPartner';
    provider_id: string;
    marketplaces: Marketplace[];
  };
  ads: null | {
    connected: boolean;
    active: boolean;
    id: string;
    type: 'Advertiser';
    provider_id: string;
    profiles: ProfileView[];
  };
}

interface AccountRow {
  account_id: string;
  name: string;
  entity_type: EntityType;
  selling: { id: string; provider_id: string; marketplaces?: Marketplace[] } | null;
  ads: { id: string; provider_id: string } | null;
}

interface ProfileRow {
  profile_id: string;
  account_id: string;
  provider_profile_id: string;
  marketplace_id: string;
  country_code: string;
  currency_code: string;
  timezone: string;
  account_name: string;
  account_info: { id: string; valid_payment_method: boolean };
}

/**
 * The caller's accounts with both connections, oldest first. A connection is `active`
 * when it is connected and in good standing: selling participates in at least one
 * marketplace; advertising has at least one profile with a valid payment method.
 */
export async function loadAccounts(db: Knex, userId: string): Promise<AccountView[]> {
  const rows: AccountRow[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .where({ user_id: userId })
    .orderBy([{ column: 'created_at' }, { column: 'account_id' }]);
  return withProfiles(db, rows);
}

/** One account by id, whoever's it is (the automation runtime runs for an account, not a caller); null when unknown. */
export async function loadAccount(db: Knex, accountId: string): Promise<AccountView | null> {
  const rows: AccountRow[] = await db.withSchema(READ_MODEL_SCHEMA).table('accounts').where({ account_id: accountId });
  return (await withProfiles(db, rows))[0] ?? null;
}

async function withProfiles(db: Knex, rows: readonly AccountRow[]): Promise<AccountView[]> {
  if (rows.length === 0) return [];
  const profiles: ProfileRow[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('advertising_profiles')
    .whereIn(
      'account_id',
      rows.map((r) => r.account_id),
    )
    .orderBy([{ column: 'country_code' }, { column: 'provider_profile_id' }]);
  return rows.map((r) => {
    const mine = profiles.filter((p) => p.account_id === r.account_id);
    const marketplaces = r.selling?.marketplaces ?? [];
    return {
      id: r.account_id,
      name: r.name,
      entity_type: r.entity_type,
      selling: r.selling && {
        connected: true,
        active: marketplaces.some((m) => m.participating),
        id: r.selling.id,
        type: 'SellingPartner',
        provider_id: r.selling.provider_id,
        marketplaces,
      },
      ads: r.ads && {
        connected: true,
        active: mine.some((p) => p.account_info.valid_payment_method),
        id: r.ads.id,
        type: 'Advertiser',
        provider_id: r.ads.provider_id,
        profiles: mine.map((p) => ({
          id: p.profile_id,
          provider_profile_id: p.provider_profile_id,
          marketplace_id: p.marketplace_id,
          country_code: p.country_code,
          currency: p.currency_code,
          timezone: p.timezone,
          account_name: p.account_name,
          account_id: p.account_info.id,
        })),
      },
    };
  });
}

/** Spec 1.6: the user has accounts and every one of them is a vendor account. */
export async function isVendorOnly(db: Knex, userId: string): Promise<boolean> {
  const kinds: { entity_type: EntityType }[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .where({ user_id: userId })
    .distinct('entity_type');
  return kinds.length > 0 && kinds.every((k) => k.entity_type === 'vendor');
}

/** Whether any user has this account (the ingestion endpoint's 404). */
export async function accountExists(db: Knex, accountId: string): Promise<boolean> {
  const row = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .where({ account_id: accountId })
    .first(db.raw('1'));
  return row !== undefined;
}

/** Every account with a connection recorded, with its user and the credential set its connections name (null: the seller's). */
export async function connectedAccounts(
  db: Knex,
): Promise<Array<{ account_id: string; user_id: string; credentials: string | null }>> {
  return db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .whereNotNull('selling')
    .orWhereNotNull('ads')
    .orderBy('account_id')
    .select('account_id', 'user_id', db.raw(`coalesce(selling->>'credentials', ads->>'credentials') as credentials`));
}
