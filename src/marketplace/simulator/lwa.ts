import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { LwaTokenResponse } from '../clients/lwa-types.js';
import { lwaError } from './api-errors.js';
import { DEMO_REFRESH_TOKENS, type LwaCredential, type TokenStore } from './tokens.js';

// POST /auth/o2/token with the refresh_token grant, answering like Login with Amazon: an unknown
// or revoked refresh token is `invalid_grant`. PUT /_sim/lwa/revocations { refresh_token, revoked }
// revokes one (the seller removed the authorization) or restores it (authorized again).
export function registerLwa(app: FastifyInstance, tokens: TokenStore, clients: readonly LwaCredential[]): void {
  app.post('/auth/o2/token', { config: { api: 'lwa' } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
    const grantType = field('grant_type');
    const refreshToken = field('refresh_token');
    if (grantType !== 'refresh_token') {
      return reply
        .code(400)
        .send(
          lwaError(
            'unsupported_grant_type',
            'The authorization grant type is not supported by the authorization server.',
          ),
        );
    }
    if (!refreshToken)
      return reply
        .code(400)
        .send(lwaError('invalid_request', 'The request is missing a required parameter : refresh_token'));
    const client = clients.find((c) => c.clientId === field('client_id') && c.clientSecret === field('client_secret'));
    if (!client) return reply.code(401).send(lwaError('invalid_client', 'Client authentication failed'));
    const audience = DEMO_REFRESH_TOKENS[refreshToken];
    if (!audience || tokens.isRevoked(refreshToken))
      return reply
        .code(400)
        .send(lwaError('invalid_grant', 'The request has an invalid grant parameter : refresh_token'));
    const answer: LwaTokenResponse = {
      access_token: tokens.issue(audience, client.clientId, refreshToken),
      refresh_token: refreshToken,
      token_type: 'bearer',
      expires_in: tokens.ttlSeconds,
    };
    return answer;
  });
  app.put('/_sim/lwa/revocations', async (request, reply) => {
    const parsed = z.strictObject({ refresh_token: z.string().min(1), revoked: z.boolean() }).safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: 'invalid_revocation', issues: parsed.error.issues });
    tokens.revoke(parsed.data.refresh_token, parsed.data.revoked);
    return parsed.data;
  });
}
