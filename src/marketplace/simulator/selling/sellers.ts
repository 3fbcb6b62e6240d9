import type { FastifyInstance } from 'fastify';
import type { GetAccountResponse, GetMarketplaceParticipationsResponse } from '../../clients/selling-types.js';
import type { FictionalSeller } from '../seller.js';
import { sellingRoute, type TokenStore } from '../tokens.js';

// Sellers API v1. Both operations' usage plan is 0.016 requests per second.
export function registerSellers(app: FastifyInstance, seller: FictionalSeller, tokens: TokenStore): void {
  const route = sellingRoute(tokens);
  app.get('/sellers/v1/marketplaceParticipations', route, async (_request, reply) => {
    reply.header('x-amzn-RateLimit-Limit', '0.016');
    return { payload: seller.participations } satisfies GetMarketplaceParticipationsResponse;
  });
  app.get('/sellers/v1/account', route, async (_request, reply) => {
    reply.header('x-amzn-RateLimit-Limit', '0.016');
    return { payload: seller.account } satisfies GetAccountResponse;
  });
}
