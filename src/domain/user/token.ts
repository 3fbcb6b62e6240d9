import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'mas_';

/** A new API token: shown once to its owner; only its hash is recorded. */
export const generateApiToken = (): string => PREFIX + randomBytes(32).toString('base64url');

/** Whether a bearer token is one of ours (every API token carries the prefix), not an OAuth access token. */
export const isApiToken = (token: string): boolean => token.startsWith(PREFIX);

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
