import type { FastifyInstance } from 'fastify';
import type { Profile } from '../../clients/ads-types.js';
import type { FictionalSeller } from '../seller.js';
import { adsAuth, type TokenStore } from '../tokens.js';

// GET /v2/profiles: one seller profile per marketplace. Needs no Amazon-Advertising-API-Scope.
export function registerProfiles(app: FastifyInstance, seller: FictionalSeller, tokens: TokenStore): void {
  app.get(
    '/v2/profiles',
    { config: { api: 'ads' }, preHandler: adsAuth(tokens) },
    async () => seller.profiles satisfies Profile[],
  );
}
