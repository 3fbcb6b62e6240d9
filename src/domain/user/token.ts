import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'mas_';

/** A new API token: shown once to its owner; only its hash is recorded. */
export const generateApiToken = (): string => PREFIX + randomBytes(32).toString('base64url');

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
