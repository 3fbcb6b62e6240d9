import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

// Secrets a seller gives us (a marketplace connection's refresh token) live here, encrypted at
// rest with AES-256-GCM, outside the event log and the rebuildable read models: the log names a
// secret only by its reference (`vault:<account id>`). Every row records the id of the key that
// sealed it, so keys can be rotated: SECRETS_KEYS="k2:<base64>,k1:<base64>" (the first seals,
// all open), then `secrets rotate` re-seals every row under the first
// (docs/decisions/095-secret-vault.md).

export const SECRETS_SCHEMA = 'secrets';
const TABLE = `${SECRETS_SCHEMA}.marketplace_credentials`;

/** The references this vault resolves start with it. */
export const VAULT_PREFIX = 'vault:';
export type SecretKind = 'selling' | 'ads';

export interface Keyring {
  /** The key new and re-sealed secrets are sealed with. */
  current: { id: string; key: Buffer };
  /** Every key a stored secret may be sealed with, by id. */
  keys: ReadonlyMap<string, Buffer>;
}

/** SECRETS_KEYS: comma-separated `<id>:<base64 of 32 bytes>`, the current one first. */
export function parseKeyring(text: string): Keyring {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf(':');
      const id = entry.slice(0, at);
      const key = Buffer.from(entry.slice(at + 1), 'base64');
      if (at < 1 || !/^[A-Za-z0-9_-]+$/.test(id))
        throw new Error(
          `SECRETS_KEYS: '${entry.slice(0, 12)}…' is not <id>:<base64 key> (id: letters, digits, - or _)`,
        );
      if (key.length !== 32) throw new Error(`SECRETS_KEYS: key ${id} is ${key.length} bytes; AES-256 needs 32`);
      return [id, key] as const;
    });
  const first = entries[0];
  if (!first) throw new Error('SECRETS_KEYS: no key');
  const keys = new Map(entries);
  if (keys.size !== entries.length) throw new Error('SECRETS_KEYS: a key id appears twice');
  return { current: { id: first[0], key: first[1] }, keys };
}

/** The key id of the key derived when SECRETS_KEYS is unset outside production. */
export const DERIVED_KEY_ID = 'derived';

/**
 * The configured keyring; unset, outside production, one key derived from INGESTION_SECRET (one
 * operator secret to keep, like the webhook signing key); unset in production, none: connecting
 * a marketplace account through the pages is refused (docs/decisions/095-secret-vault.md).
 */
export function keyringFrom(config: {
  SECRETS_KEYS?: string | undefined;
  NODE_ENV: string;
  INGESTION_SECRET: string;
}): Keyring | null {
  if (config.SECRETS_KEYS) return parseKeyring(config.SECRETS_KEYS);
  if (config.NODE_ENV === 'production') return null;
  const key = Buffer.from(hkdfSync('sha256', config.INGESTION_SECRET, '', 'marketplace-secrets-vault', 32));
  return { current: { id: DERIVED_KEY_ID, key }, keys: new Map([[DERIVED_KEY_ID, key]]) };
}

export async function migrateSecrets(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`create schema if not exists ${SECRETS_SCHEMA}`);
  await trx.raw(`
    create table if not exists ${TABLE} (
      reference text not null,
      kind text not null check (kind in ('selling', 'ads')),
      key_id text not null,
      iv bytea not null,
      ciphertext bytea not null,
      tag bytea not null,
      -- not secret: who authorized it, shown on the connections page
      selling_partner_id text,
      created_at timestamptz not null default now(),
      sealed_at timestamptz not null default now(),
      primary key (reference, kind)
    )`);
  // the connections pages' authorization states: hashed, bound to a user, single use, short-lived
  await trx.raw(`
    create table if not exists ${SECRETS_SCHEMA}.connection_states (
      state_hash text primary key,
      user_id uuid not null,
      kind text not null check (kind in ('selling', 'ads')),
      -- the account an advertising connection joins; null: a new one
      account_id uuid,
      expires_at timestamptz not null,
      used_at timestamptz
    )`);
}

/** Erases a reference's secrets (of `kind`, or all); needs no key. How many were erased. */
export const eraseSecrets = (db: Knex, reference: string, kind?: SecretKind): Promise<number> =>
  db
    .table(TABLE)
    .where({ reference, ...(kind ? { kind } : {}) })
    .delete();

/** Whether a connection's credential name is a vault reference (else a configured set's name). */
export const isVaultReference = (name: string | null | undefined): name is string => !!name?.startsWith(VAULT_PREFIX);

export interface Sealed {
  key_id: string;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

/** The row's place is authenticated with it: a ciphertext copied to another row does not open. */
const aadOf = (reference: string, kind: SecretKind) => Buffer.from(`${reference}\n${kind}`);

/** Seals under the current key; `aad`, authenticated with it, names the secret's place. Other
 * kinds of secret (the TOTP secrets of src/identity/credentials.ts) are sealed with it too. */
export function seal(keyring: Keyring, plaintext: string, aad: Buffer): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.current.key, iv);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { key_id: keyring.current.id, iv, ciphertext, tag: cipher.getAuthTag() };
}

export function open(keyring: Keyring, sealed: Sealed, aad: Buffer): string {
  const key = keyring.keys.get(sealed.key_id);
  if (!key)
    throw new Error(`the vault's key ${sealed.key_id} is not in SECRETS_KEYS: keep it until secrets rotate has run`);
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
}

export interface VaultCredentials {
  selling_refresh_token?: string;
  ads_refresh_token?: string;
  selling_partner_id?: string;
}

export interface Vault {
  /** Stores (or replaces) the secret of one connection of a reference. */
  put(reference: string, kind: SecretKind, secret: string, sellingPartnerId?: string): Promise<void>;
  /** The reference's secrets, opened; undefined when it has none. */
  credentials(reference: string): Promise<VaultCredentials | undefined>;
  /** Erases the reference's secret of `kind` (both when unsaid); how many were erased. */
  erase(reference: string, kind?: SecretKind): Promise<number>;
  /** Re-seals every secret not sealed with the current key; how many were re-sealed. */
  rotate(): Promise<number>;
}

export function createVault(db: Knex, keyring: Keyring): Vault {
  return {
    async put(reference, kind, secret, sellingPartnerId) {
      const sealed = seal(keyring, secret, aadOf(reference, kind));
      await db
        .table(TABLE)
        .insert({ reference, kind, ...sealed, selling_partner_id: sellingPartnerId ?? null })
        .onConflict(['reference', 'kind'])
        .merge({ ...sealed, selling_partner_id: sellingPartnerId ?? null, sealed_at: db.fn.now() });
    },
    async credentials(reference) {
      const rows: (Sealed & { kind: SecretKind; selling_partner_id: string | null })[] = await db
        .table(TABLE)
        .where({ reference })
        .select('kind', 'key_id', 'iv', 'ciphertext', 'tag', 'selling_partner_id');
      if (rows.length === 0) return undefined;
      const found: VaultCredentials = {};
      for (const row of rows) {
        const secret = open(keyring, row, aadOf(reference, row.kind));
        if (row.kind === 'selling') found.selling_refresh_token = secret;
        else found.ads_refresh_token = secret;
        if (row.selling_partner_id) found.selling_partner_id = row.selling_partner_id;
      }
      return found;
    },
    erase: (reference, kind) => eraseSecrets(db, reference, kind),
    async rotate() {
      let rotated = 0;
      // one row at a time, each locked while re-sealed: a connection made meanwhile is sealed
      // with the current key already
      for (;;) {
        const done = await db.transaction(async (trx) => {
          const row: (Sealed & { reference: string; kind: SecretKind }) | undefined = await trx
            .table(TABLE)
            .whereNot({ key_id: keyring.current.id })
            .forUpdate()
            .skipLocked()
            .first('reference', 'kind', 'key_id', 'iv', 'ciphertext', 'tag');
          if (!row) return true;
          const aad = aadOf(row.reference, row.kind);
          const sealed = seal(keyring, open(keyring, row, aad), aad);
          await trx
            .table(TABLE)
            .where({ reference: row.reference, kind: row.kind })
            .update({ ...sealed, sealed_at: trx.fn.now() });
          return false;
        });
        if (done) return rotated;
        rotated += 1;
      }
    },
  };
}
