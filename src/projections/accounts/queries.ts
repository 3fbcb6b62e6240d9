import type { Knex } from 'knex';
import { prepared } from '../../infra/db.js';
import type { EntityType, InactiveCause, Marketplace } from '../../domain/account/events.js';
import { rawDataKeptUntil } from '../../domain/account/raw-data.js';
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

/** Since when and why a connection is inactive, and until when its raw provider data is kept. */
export interface InactiveView {
  since: string;
  cause: InactiveCause;
  detail: string;
  raw_data_kept_until: string;
}

interface ConnectionView {
  connected: boolean;
  active: boolean;
  /** null while the connection is active */
  inactive: InactiveView | null;
  id: string;
  provider_id: string;
}

export interface AccountView {
  id: string;
  name: string;
  entity_type: EntityType;
  selling: null | (ConnectionView & { type: 'SellingPartner'; marketplaces: Marketplace[] });
  ads: null | (ConnectionView & { type: 'Advertiser'; profiles: ProfileView[] });
}

type InactiveRow = { since: string; cause: InactiveCause; detail: string };

interface AccountRow {
  account_id: string;
  name: string;
  entity_type: EntityType;
  selling: { id: string; provider_id: string; marketplaces?: Marketplace[]; inactive?: InactiveRow } | null;
  ads: { id: string; provider_id: string; inactive?: InactiveRow } | null;
  profiles: ProfileRow[];
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
 * A connection's state. `connected` (authorized with the marketplace) is false once the
 * marketplace refused its authorization for good or the seller disconnected it (its secret is
 * erased); one an operator deactivated stays authorized.
 * `active` (connected and in good standing) is false for any inactive connection, and otherwise
 * as observed (`standing`).
 */
const connectionState = (row: { id: string; inactive?: InactiveRow }, standing: boolean) => ({
  connected: row.inactive?.cause !== 'authorization_refused' && row.inactive?.cause !== 'disconnected',
  active: !row.inactive && standing,
  id: row.id,
});

const inactiveView = ({ inactive }: { inactive?: InactiveRow }): InactiveView | null =>
  inactive ? { ...inactive, raw_data_kept_until: rawDataKeptUntil(inactive.since).toISOString() } : null;

/**
 * The caller's accounts with both connections, oldest first. A connection in good standing:
 * selling participates in at least one marketplace; advertising has at least one profile with
 * a valid payment method.
 */
export async function loadAccounts(db: Knex, userId: string): Promise<AccountView[]> {
  const rows: AccountRow[] = await withProfiles(db)
    .where({ 'a.user_id': userId })
    .orderBy([{ column: 'a.created_at' }, { column: 'a.account_id' }]);
  return rows.map(accountView);
}

/** One account by id, whoever's it is (the automation runtime runs for an account, not a caller); null when unknown. */
export async function loadAccount(db: Knex, accountId: string): Promise<AccountView | null> {
  const rows = await prepared<AccountRow[]>(() => withProfiles(db).where({ 'a.account_id': accountId }));
  return rows[0] ? accountView(rows[0]) : null;
}

/** Accounts with their advertising profiles (by country, then profile id): one statement. */
const withProfiles = (db: Knex) =>
  db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts as a')
    .select(
      'a.*',
      db.raw(
        `coalesce((select json_agg(p order by p.country_code, p.provider_profile_id) from ${READ_MODEL_SCHEMA}.advertising_profiles p where p.account_id = a.account_id), '[]') as profiles`,
      ),
    );

function accountView(r: AccountRow): AccountView {
  const mine = r.profiles;
  const marketplaces = r.selling?.marketplaces ?? [];
  return {
    id: r.account_id,
    name: r.name,
    entity_type: r.entity_type,
    selling: r.selling && {
      ...connectionState(
        r.selling,
        marketplaces.some((m) => m.participating),
      ),
      type: 'SellingPartner',
      provider_id: r.selling.provider_id,
      marketplaces,
      inactive: inactiveView(r.selling),
    },
    ads: r.ads && {
      ...connectionState(
        r.ads,
        mine.some((p) => p.account_info.valid_payment_method),
      ),
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
      inactive: inactiveView(r.ads),
    },
  };
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

/** Every account with a connection recorded, with its user, the credential set its connections
 * name (null: the seller's) and whether one of them is active (not deactivated). */
export async function connectedAccounts(
  db: Knex,
): Promise<Array<{ account_id: string; user_id: string; credentials: string | null; active: boolean }>> {
  return db
    .withSchema(READ_MODEL_SCHEMA)
    .table('accounts')
    .whereNotNull('selling')
    .orWhereNotNull('ads')
    .orderBy('account_id')
    .select(
      'account_id',
      'user_id',
      db.raw(`coalesce(selling->>'credentials', ads->>'credentials') as credentials`),
      db.raw(
        `(selling is not null and selling->'inactive' is null) or (ads is not null and ads->'inactive' is null) as active`,
      ),
    );
}

/** The inactive connections, with the day their raw data is counted from. */
export async function inactiveConnections(
  db: Knex,
): Promise<Array<{ account_id: string; connection: 'selling' | 'ads'; since: string }>> {
  const { rows } = await db.raw(
    `select account_id, c.connection, c.value->'inactive'->>'since' as since
     from ${READ_MODEL_SCHEMA}.accounts, lateral (values ('selling', selling), ('ads', ads)) c(connection, value)
     where c.value->'inactive' is not null
     order by account_id, c.connection`,
  );
  return rows;
}
