import { createHash } from 'node:crypto';

/** API tokens are stored only as this hash (sha256, hex); the token itself is shown once. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
