import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { accessDenied, adsError } from './api-errors.js';

// Access tokens the simulated LWA issues: opaque, expiring, bound to the API whose refresh
// token they came from, and checked on every API call. A refresh token can be revoked (the
// seller removed the app's authorization): LWA then refuses it, and the access tokens it gave
// stop working at once.

/** The vendor's tokens have audiences of their own, so seller-only routes refuse them. */
export type Audience = 'selling' | 'ads' | 'vendor-selling' | 'vendor-ads';

export interface LwaCredential {
  clientId: string;
  clientSecret: string;
  /** The selling API application the client's consent page authorizes (`application_id`). */
  applicationId?: string;
}

/** The demo seller's refresh tokens, one per connection, and the demo vendor's. */
export const DEMO_REFRESH_TOKENS: Readonly<Record<string, Audience>> = {
  'Atzr|demo-seller': 'selling',
  'Atzr|demo-advertiser': 'ads',
  'Atzr|demo-vendor': 'vendor-selling',
  'Atzr|demo-vendor-advertiser': 'vendor-ads',
};

interface Grant {
  audience: Audience;
  clientId: string;
  refreshToken: string;
  expiresAt: number;
}

type Verdict = { ok: true; grant: Grant } | { ok: false; reason: 'missing' | 'invalid' | 'expired' };

export interface TokenStore {
  readonly ttlSeconds: number;
  issue(audience: Audience, clientId: string, refreshToken: string): string;
  verify(accessToken: string | undefined, audience: Audience): Verdict;
  /** Revokes the authorization behind a refresh token, with the access tokens it gave; `false` restores it. */
  revoke(refreshToken: string, revoked: boolean): void;
  isRevoked(refreshToken: string): boolean;
}

export function createTokenStore(ttlSeconds: number, now: () => number): TokenStore {
  const grants = new Map<string, Grant>();
  const revoked = new Set<string>();
  return {
    ttlSeconds,
    issue(audience, clientId, refreshToken) {
      for (const [token, grant] of grants) if (grant.expiresAt <= now()) grants.delete(token);
      const token = `Atza|${randomBytes(24).toString('base64url')}`;
      grants.set(token, { audience, clientId, refreshToken, expiresAt: now() + ttlSeconds * 1000 });
      return token;
    },
    revoke(refreshToken, isRevoked) {
      if (!isRevoked) return void revoked.delete(refreshToken);
      revoked.add(refreshToken);
      for (const [token, grant] of grants) if (grant.refreshToken === refreshToken) grants.delete(token);
    },
    isRevoked: (refreshToken) => revoked.has(refreshToken),
    verify(accessToken, audience) {
      if (!accessToken) return { ok: false, reason: 'missing' };
      const grant = grants.get(accessToken);
      if (!grant || grant.audience !== audience) return { ok: false, reason: 'invalid' };
      if (grant.expiresAt <= now()) return { ok: false, reason: 'expired' };
      return { ok: true, grant };
    },
  };
}

const SELLING_DETAILS = {
  missing: '',
  invalid: 'The access token you provided is revoked, malformed or invalid.',
  expired: 'The access token you provided has expired.',
};

/** Selling API: `x-amz-access-token`; refusals are 403 with the errors list. */
export function sellingAuth(tokens: TokenStore) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const verdict = tokens.verify(header(request, 'x-amz-access-token'), 'selling');
    if (!verdict.ok) {
      return reply.code(403).send(accessDenied(SELLING_DETAILS[verdict.reason]));
    }
  };
}

/** Route options of a selling API route: its error dialect and the access token check. */
export const sellingRoute = (tokens: TokenStore) => ({
  config: { api: 'selling' as const },
  preHandler: sellingAuth(tokens),
});

/** Ads API: `Authorization: Bearer` plus the LWA client id the token was issued to; refusals are 401. */
export function adsAuth(tokens: TokenStore) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const bearer = /^Bearer (.+)$/i.exec(header(request, 'authorization') ?? '')?.[1];
    const verdict = tokens.verify(bearer, 'ads');
    const refuse = (details: string) => reply.code(401).send(adsError('UNAUTHORIZED', details, request.id));
    if (!verdict.ok)
      return refuse(
        verdict.reason === 'expired' ? 'Access token has expired' : 'Not authorized to access this advertiser',
      );
    if (header(request, 'amazon-advertising-api-clientid') !== verdict.grant.clientId) {
      return refuse('Amazon-Advertising-API-ClientId is missing or does not match the access token');
    }
  };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
