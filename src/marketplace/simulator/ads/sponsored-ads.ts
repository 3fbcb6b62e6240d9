import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Catalog } from '../catalog.js';
import type { FictionalSeller } from '../seller.js';
import { adsAuth, type TokenStore } from '../tokens.js';
import { registerBudgetRules } from './budget-rules.js';
import { registerReportingRoutes } from './reporting.js';
import { acceptVendorJson, requireScope } from './scope.js';
import { registerSponsoredProductsRoutes } from './sp-routes.js';
import { createAdsState, type AdsState } from './sp-state.js';

// The fictional seller's Sponsored Products: entity routes, async reporting, and the control
// routes tests use:
//   GET    /_sim/ads/changes      every change the create/update/delete endpoints applied
//   DELETE /_sim/ads/changes
//   GET    /_sim/ads/reporting    { hold, pendingPolls, reports }
//   PUT    /_sim/ads/reporting    { hold?, pendingPolls? }: keep reports PENDING, or set how many
//                                 status polls answer PROCESSING before COMPLETED (default 1)

export interface SponsoredAdsOptions {
  seller: FictionalSeller;
  catalog: Catalog;
  tokens: TokenStore;
  /** the simulator's clock: "today" for reports (profile-local) and change times */
  now: () => number;
}

const reportingControlInput = z.strictObject({
  hold: z.boolean().optional(),
  pendingPolls: z.number().int().min(0).optional(),
});

/** Returns the Sponsored Products state, which the Marketing Stream reads and follows. */
export function registerSponsoredAds(app: FastifyInstance, options: SponsoredAdsOptions): AdsState {
  const state = createAdsState(options.catalog.seed, options.seller.profiles, options.catalog, options.now);
  void app.register(async (scope) => {
    acceptVendorJson(scope);
    const guards = [adsAuth(options.tokens), requireScope(state)];
    registerSponsoredProductsRoutes(scope, state, guards);
    registerBudgetRules(scope, guards);
    const reporting = registerReportingRoutes(scope, state, guards);

    scope.get('/_sim/ads/reporting', async () => ({ ...reporting.control, reports: reporting.list() }));
    scope.put('/_sim/ads/reporting', async (request, reply) => {
      const parsed = reportingControlInput.safeParse(request.body ?? {});
      if (!parsed.success) return reply.code(400).send({ error: 'invalid_control', issues: parsed.error.issues });
      Object.assign(reporting.control, parsed.data);
      return reporting.control;
    });
  });
  app.get('/_sim/ads/changes', async () => ({ changes: state.changes() }));
  app.delete('/_sim/ads/changes', async (_request, reply) => {
    state.clearChanges();
    return reply.code(204).send();
  });
  return state;
}
