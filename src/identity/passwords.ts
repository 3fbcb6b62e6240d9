import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Passwords (docs/decisions/092-passwords.md): scrypt, memory-hard, from the standard library. The
// hash string carries its parameters, `scrypt$<log2 N>$<r>$<p>$<salt>$<key>` (base64url), so they
// can be raised later: a hash made with older ones still verifies, and `needsRehash` says so.

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** OWASP's scrypt setting of 32 MiB (N=2^15, r=8, p=3), an equivalent of its N=2^17, p=1 in a quarter of the memory. */
export const CURRENT = { log2N: 15, r: 8, p: 3 } as const;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, params: { log2N: number; r: number; p: number }): Promise<Buffer> {
  const N = 2 ** params.log2N;
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** What is wrong with a new password, or null: length only (NIST 800-63B), counted in code points. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `a password needs at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `a password has at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, CURRENT);
  return ['scrypt', CURRENT.log2N, CURRENT.r, CURRENT.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

const FORMAT = /^scrypt\$(\d{1,2})\$(\d{1,3})\$(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

// checked against when there is no account or no password, so that such an answer takes as long
// as a wrong password's
const DECOY = ['scrypt', CURRENT.log2N, CURRENT.r, CURRENT.p, 'A'.repeat(22), 'A'.repeat(43)].join('$');

/** Whether `password` matches `stored`; a missing `stored` costs the same time and is false. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const match = FORMAT.exec(stored ?? DECOY) ?? FORMAT.exec(DECOY)!;
  const [, log2N, r, p, salt, key] = match;
  const expected = Buffer.from(key!, 'base64url');
  const actual = await derive(password, Buffer.from(salt!, 'base64url'), {
    log2N: Number(log2N),
    r: Number(r),
    p: Number(p),
  });
  return stored != null && actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Whether a hash was made with parameters other than today's (rehash it at the next sign-in). */
export function needsRehash(stored: string): boolean {
  const match = FORMAT.exec(stored);
  return (
    !match || Number(match[1]) !== CURRENT.log2N || Number(match[2]) !== CURRENT.r || Number(match[3]) !== CURRENT.p
  );
}
