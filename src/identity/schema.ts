import type { Knex } from 'knex';

// Personal data lives here, outside the event log and the rebuildable read models: deleting an
// account deletes its rows and nothing of it remains (docs/decisions/091-seller-accounts.md).
export const IDENTITY_SCHEMA = 'identity';

/** The migration step of the personal-data tables: idempotent. */
export async function migrateIdentity(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`create schema if not exists ${IDENTITY_SCHEMA}`);
  await trx.raw(`
    create table if not exists ${IDENTITY_SCHEMA}.credentials (
      user_id uuid primary key,
      -- lower-cased, so one address is one account whatever its case
      email text not null unique,
      -- scrypt with its parameters (passwords.ts); null until a reset link sets one
      password_hash text,
      -- a confirmed TOTP second factor's base32 secret, and one being enrolled
      totp_secret text,
      totp_pending text,
      -- the last TOTP time step accepted, so a code is accepted once
      totp_last_step bigint,
      created_at timestamptz not null default now()
    )`);
  await trx.raw(`
    create table if not exists ${IDENTITY_SCHEMA}.web_sessions (
      -- sha256 of the cookie's random id: the table alone signs no one in
      id_hash text primary key,
      user_id uuid not null,
      -- 'second_factor': the password was right, the TOTP code is still owed
      stage text not null check (stage in ('signed_in', 'second_factor')),
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    )`);
  await trx.raw(`create index if not exists web_sessions_user on ${IDENTITY_SCHEMA}.web_sessions (user_id)`);
  await trx.raw(`
    create table if not exists ${IDENTITY_SCHEMA}.reset_tokens (
      token_hash text primary key,
      user_id uuid not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`);
  await trx.raw(`create index if not exists reset_tokens_user on ${IDENTITY_SCHEMA}.reset_tokens (user_id)`);
}
