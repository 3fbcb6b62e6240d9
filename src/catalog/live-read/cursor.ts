import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { DomainError } from '../../domain/shared/errors.js';

// Continuation cursors of live reads (spec 4.9, 7 `invalid_cursor`): the provider's own page
// token and the first page's parameters, sealed with AES-256-GCM. What the cursor is bound to
// (user, operation, target, revision) is the additional authenticated data, never inside the
// cursor: a cursor presented by another user, or for another operation, target or revision,
// fails authentication exactly like a forged one. Expiry sits inside the sealed part.

/** How long a continuation answers (docs/decisions/108-live-read-cursors-budget-deadline.md). */
export const CURSOR_TTL_MS = 15 * 60_000;
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What a cursor may only be used for. */
export interface CursorBinding {
  userId: string;
  operation: string;
  catalogRevision: string;
  target: { type: string; id: string };
}

/** What a cursor carries: the provider's continuation and the parameters the first page was read with. */
export interface CursorState {
  continuation: string;
  parameters: Record<string, unknown>;
}

/** A 32-byte AES key from the configured secret (any length; hashed so that a passphrase also serves). */
export const cursorKey = (secret: string): Buffer => createHash('sha256').update(`live-read-cursor:${secret}`).digest();

const aad = (b: CursorBinding) =>
  Buffer.from(JSON.stringify([VERSION, b.userId, b.operation, b.catalogRevision, b.target.type, b.target.id]));

export function sealCursor(key: Buffer, binding: CursorBinding, state: CursorState, now: Date): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(binding));
  const plain = Buffer.from(JSON.stringify({ exp: now.getTime() + CURSOR_TTL_MS, ...state }));
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.of(VERSION), iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The cursor's state, or `invalid_cursor` when it was forged, altered, expired or bound to something else. */
export function openCursor(key: Buffer, binding: CursorBinding, cursor: string, now: Date): CursorState {
  const bytes = Buffer.from(cursor, 'base64url');
  const refused = (why: string) =>
    new DomainError('invalid_cursor', `cursor: ${why}; read the first page again without cursor`, {
      argument: 'cursor',
    });
  if (bytes.length < 1 + IV_BYTES + TAG_BYTES + 1 || bytes[0] !== VERSION || bytes.toString('base64url') !== cursor)
    throw refused('not a cursor this service issued');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + IV_BYTES));
  decipher.setAAD(aad(binding));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  let opened: { exp: number } & CursorState;
  try {
    const plain = Buffer.concat([
      decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
    opened = JSON.parse(plain.toString('utf8')) as { exp: number } & CursorState;
  } catch {
    throw refused(
      'forged or altered, or issued for another user, operation, target or catalog_revision (repeat the first page’s operation, catalog_revision and target)',
    );
  }
  if (opened.exp <= now.getTime()) throw refused(`expired at ${new Date(opened.exp).toISOString()}`);
  return { continuation: opened.continuation, parameters: opened.parameters };
}
