import type { FastifyInstance } from 'fastify';
import type { LwaTokenResponse } from '../clients/lwa-types.js';
import { lwaError } from './api-errors.js';
import { DEMO_REFRESH_TOKENS, type LwaCredential, type TokenStore } from './tokens.js';

// POST /auth/o2/token with the refresh_token grant, answering like Login with Amazon.
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
    if (!audience)
      return reply
        .code(400)
        .send(lwaError('invalid_grant', 'The request has an invalid grant parameter : refresh_token'));
    const answer: LwaTokenResponse = {
      access_token: tokens.issue(audience, client.clientId),
      refresh_token: refreshToken,
      token_type: 'bearer',
      expires_in: tokens.ttlSeconds,
    };
    return answer;
  });
}
