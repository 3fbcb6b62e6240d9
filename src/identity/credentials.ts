import { randomBytes } from 'node:crypto';
import { sha256 } from '../domain/shared/canonical.js';
import type { Knex } from 'knex';
import { Secret, TOTP } from 'otpauth';
import { open, seal, type Keyring } from '../secrets/vault.js';
import { IDENTITY_SCHEMA } from './schema.js';

// A seller's personal data: sign-in email, password hash, TOTP secret (sealed with the secret
// vault's AEAD), password reset tokens.

const credentials = (db: Knex) => db.withSchema(IDENTITY_SCHEMA).table('credentials');
const resetTokens = (db: Knex) => db.withSchema(IDENTITY_SCHEMA).table('reset_tokens');

/** A reset link works this long, once. */
export const RESET_LINK_LIFETIME_MS = 30 * 60 * 1000;

export interface Credentials {
  user_id: string;
  email: string;
  password_hash: string | null;
  /** sealed (`sealTotp`): open with `openTotp` */
  totp_secret: string | null;
  totp_pending: string | null;
  created_at: Date;
}

/** The address as stored and compared (lower case), or null when it is not one. */
export function normalizeEmail(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const email = value.trim().toLowerCase();
  return email.length <= 254 && /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/.test(email)
    ? email
    : null;
}

export class EmailTaken extends Error {}

export async function createCredentials(
  db: Knex,
  row: { user_id: string; email: string; password_hash: string | null },
): Promise<void> {
  try {
    await credentials(db).insert(row);
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new EmailTaken(row.email);
    throw err;
  }
}

export async function credentialsByEmail(db: Knex, email: string): Promise<Credentials | null> {
  return (await credentials(db).where({ email }).first()) ?? null;
}

export async function credentialsOf(db: Knex, userId: string): Promise<Credentials | null> {
  return (await credentials(db).where({ user_id: userId }).first()) ?? null;
}

export async function setPasswordHash(db: Knex, userId: string, passwordHash: string): Promise<void> {
  await credentials(db).where({ user_id: userId }).update({ password_hash: passwordHash });
}

/** A new one-time reset token for the user (only its hash is kept); earlier ones stop working. */
export async function issueResetToken(db: Knex, userId: string, now: Date): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.transaction(async (trx) => {
    await resetTokens(trx).where({ user_id: userId }).delete();
    await resetTokens(trx).insert({
      token_hash: sha256(token),
      user_id: userId,
      expires_at: new Date(now.getTime() + RESET_LINK_LIFETIME_MS),
    });
  });
  return token;
}

/** Whether a reset token is live (unused, unexpired): its user, or null. */
export async function resetTokenUser(db: Knex, token: string, now: Date): Promise<string | null> {
  const row = await resetTokens(db)
    .select('user_id')
    .where({ token_hash: sha256(token) })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .first();
  return row?.user_id ?? null;
}

/** Uses a reset token up, atomically: its user the first time, null ever after (or once expired). */
export async function consumeResetToken(db: Knex, token: string, now: Date): Promise<string | null> {
  const [row] = await resetTokens(db)
    .where({ token_hash: sha256(token) })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .update({ used_at: now })
    .returning('user_id');
  return row?.user_id ?? null;
}

const ISSUER = 'Marketplace automation';
const totpOf = (secret: string, label = 'seller') =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });

/** The otpauth:// URI an authenticator app takes the secret from. */
export const totpUri = (secret: string, email: string): string => totpOf(secret, email).toString();

// A TOTP secret is stored sealed by the vault's keys as `<key id>:<iv>.<ciphertext>.<tag>`
// (base64url), bound to its user: a value copied to another user's row does not open.
const SEALED_TOTP = /^([A-Za-z0-9_-]+):([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]+)$/;
const totpAad = (userId: string) => Buffer.from(`identity.totp\n${userId}`);

export function sealTotp(keyring: Keyring, userId: string, secret: string): string {
  const { key_id, iv, ciphertext, tag } = seal(keyring, secret, totpAad(userId));
  return `${key_id}:${[iv, ciphertext, tag].map((b) => b.toString('base64url')).join('.')}`;
}

export function openTotp(keyring: Keyring, userId: string, stored: string): string {
  const parts = SEALED_TOTP.exec(stored);
  // a secret stored in the clear before sealing (docs/decisions/094-account-deletion-and-export.md)
  if (!parts)
    throw new Error(`the TOTP secret of user ${userId} was stored before sealing: clear it, then enroll again`);
  const [, key_id, iv, ciphertext, tag] = parts as unknown as [string, string, string, string, string];
  const bytes = (b: string) => Buffer.from(b, 'base64url');
  return open(keyring, { key_id, iv: bytes(iv), ciphertext: bytes(ciphertext), tag: bytes(tag) }, totpAad(userId));
}

/** Starts TOTP enrollment: a new secret, pending until a code from it is confirmed. */
export async function beginTotp(db: Knex, keyring: Keyring, userId: string): Promise<void> {
  await credentials(db)
    .where({ user_id: userId })
    .update({ totp_pending: sealTotp(keyring, userId, new Secret({ size: 20 }).base32) });
}

/** The time step a code is valid in (this one or either neighbour), or null. */
function codeStep(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret).validate({ token: code, timestamp: now.getTime(), window: 1 });
  return delta === null ? null : Math.floor(now.getTime() / 30_000) + delta;
}

/**
 * Accepts a code once: its time step must be later than the last accepted, so an overheard
 * code cannot be replayed. `pending`: the code confirms enrollment, making the pending secret the one.
 */
export async function acceptTotpCode(
  db: Knex,
  keyring: Keyring,
  userId: string,
  code: string,
  now: Date,
  pending = false,
) {
  const row = await credentialsOf(db, userId);
  const sealed = pending ? row?.totp_pending : row?.totp_secret;
  if (!sealed) return false;
  const step = codeStep(openTotp(keyring, userId, sealed), code, now);
  if (step === null) return false;
  const updated = await credentials(db)
    .where({ user_id: userId, [pending ? 'totp_pending' : 'totp_secret']: sealed })
    .where((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
    .update({
      totp_last_step: step,
      ...(pending ? { totp_secret: sealed, totp_pending: null } : {}),
    });
  return updated === 1;
}

/**
 * Re-seals every TOTP secret sealed with another key than the current one (`secrets rotate`);
 * how many were re-sealed. One row at a time, locked while re-sealed; rows in the clear are left.
 */
export async function resealTotpSecrets(db: Knex, keyring: Keyring): Promise<number> {
  const current = `${keyring.current.id}:`;
  const stale = (column: string) => (q: Knex.QueryBuilder) =>
    q
      .whereRaw('?? ~ ?', [column, SEALED_TOTP.source])
      .andWhereRaw('left(??, ?) <> ?', [column, current.length, current]);
  let resealed = 0;
  for (;;) {
    const done = await db.transaction(async (trx) => {
      const row: Pick<Credentials, 'user_id' | 'totp_secret' | 'totp_pending'> | undefined = await credentials(trx)
        .where((q) => q.where(stale('totp_secret')).orWhere(stale('totp_pending')))
        .forUpdate()
        .skipLocked()
        .first('user_id', 'totp_secret', 'totp_pending');
      if (!row) return true;
      const reseal = (value: string | null) =>
        value && SEALED_TOTP.test(value)
          ? sealTotp(keyring, row.user_id, openTotp(keyring, row.user_id, value))
          : value;
      await credentials(trx)
        .where({ user_id: row.user_id })
        .update({ totp_secret: reseal(row.totp_secret), totp_pending: reseal(row.totp_pending) });
      return false;
    });
    if (done) return resealed;
    resealed += 1;
  }
}

export async function removeTotp(db: Knex, userId: string): Promise<void> {
  await credentials(db)
    .where({ user_id: userId })
    .update({ totp_secret: null, totp_pending: null, totp_last_step: null });
}

/** Erases every personal row of the user: credentials, reset tokens, sessions. */
export async function eraseIdentity(db: Knex, userId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await credentials(trx).where({ user_id: userId }).delete();
    await resetTokens(trx).where({ user_id: userId }).delete();
    await trx.withSchema(IDENTITY_SCHEMA).table('web_sessions').where({ user_id: userId }).delete();
  });
}
