import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { LwaTokenResponse } from '../clients/lwa-types.js';
import { lwaError } from './api-errors.js';
import { tenantRevocation, tenantToken, type Consents } from './consent.js';
import { DEMO_REFRESH_TOKENS, type LwaCredential, type TokenStore } from './tokens.js';

// POST /auth/o2/token, answering like Login with Amazon: the refresh_token grant (an unknown or
// revoked refresh token is `invalid_grant`), and the authorization_code grant that redeems a
// consent's code (single use, for the client and redirect_uri it was issued to) for a refresh
// token of the seller who consented. PUT /_sim/lwa/revocations { refresh_token, revoked }
// revokes one (the seller removed the authorization) or restores it (authorized again).
export function registerLwa(
  app: FastifyInstance,
  tokens: TokenStore,
  clients: readonly LwaCredential[],
  consents: Consents,
): void {
  const invalidGrant = (reply: FastifyReply, description: string) =>
    reply.code(400).send(lwaError('invalid_grant', description));
  const missing = (reply: FastifyReply, name: string) =>
    reply.code(400).send(lwaError('invalid_request', `The request is missing a required parameter : ${name}`));

  /** A consented seller's tokens: its own simulator's, remembered as its. */
  async function consentedToken(reply: FastifyReply, refreshToken: string, client: LwaCredential) {
    const owner = consents.refreshTokenOf(refreshToken);
    if (!owner || tokens.isRevoked(refreshToken))
      return invalidGrant(reply, 'The request has an invalid grant parameter : refresh_token');
    const answer = await tenantToken(owner.seller, owner.audience, client);
    const token = answer.json<LwaTokenResponse>();
    if (answer.statusCode !== 200) return reply.code(answer.statusCode).send(token);
    consents.noteAccessToken(token.access_token, owner.seller, token.expires_in);
    return { ...token, refresh_token: refreshToken };
  }

  app.post('/auth/o2/token', { config: { api: 'lwa' } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
    const grantType = field('grant_type');
    if (grantType !== 'refresh_token' && grantType !== 'authorization_code') {
      return reply
        .code(400)
        .send(
          lwaError(
            'unsupported_grant_type',
            'The authorization grant type is not supported by the authorization server.',
          ),
        );
    }
    if (grantType === 'authorization_code') {
      const code = field('code');
      const redirectUri = field('redirect_uri');
      if (!code) return missing(reply, 'code');
      if (!redirectUri) return missing(reply, 'redirect_uri');
      const client = clients.find(
        (c) => c.clientId === field('client_id') && c.clientSecret === field('client_secret'),
      );
      if (!client) return reply.code(401).send(lwaError('invalid_client', 'Client authentication failed'));
      const redeemed = consents.redeem(code, client.clientId, redirectUri);
      if ('refused' in redeemed) return invalidGrant(reply, redeemed.refused);
      // a consent given again authorizes the seller again
      const owner = consents.refreshTokenOf(redeemed.refreshToken)!;
      await tenantRevocation(owner.seller, owner.audience, false);
      return consentedToken(reply, redeemed.refreshToken, client);
    }
    const refreshToken = field('refresh_token');
    if (!refreshToken) return missing(reply, 'refresh_token');
    const client = clients.find((c) => c.clientId === field('client_id') && c.clientSecret === field('client_secret'));
    if (!client) return reply.code(401).send(lwaError('invalid_client', 'Client authentication failed'));
    if (consents.refreshTokenOf(refreshToken)) return consentedToken(reply, refreshToken, client);
    const audience = DEMO_REFRESH_TOKENS[refreshToken];
    if (!audience || tokens.isRevoked(refreshToken))
      return invalidGrant(reply, 'The request has an invalid grant parameter : refresh_token');
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
    // a consented seller's access tokens stop working at once too
    const owner = consents.refreshTokenOf(parsed.data.refresh_token);
    if (owner) await tenantRevocation(owner.seller, owner.audience, parsed.data.revoked);
    return parsed.data;
  });
}
