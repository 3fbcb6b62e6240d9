import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../infra/config.js';
import { acceptVendorJson, requireScope } from '../ads/scope.js';
import type { AdsState } from '../ads/sp-state.js';
import type { FinishedJob } from '../reports/jobs.js';
import type { FictionalSeller } from '../seller.js';
import type { SellingData } from '../selling/data.js';
import { adsAuth, type TokenStore } from '../tokens.js';
import type { SpResource } from '../../clients/ads-sp-types.js';
import { stableId } from './ads-stream.js';
import { createCompetition } from './competition.js';
import { registerEventControl } from './control.js';
import { createDelivery, DEFAULT_DELIVERY, registerDeliveryFaults, type DeliveryOptions } from './delivery.js';
import { adsEntityChanged, listingChanged } from './hooks.js';
import { jobFinished } from './raise.js';
import { createEventHub } from './hub.js';
import { createMarket } from './market.js';
import { registerNotificationsApi } from './notifications-api.js';
import type { EventSources } from './sources.js';
import { registerStreamApi } from './stream-api.js';
import { createSubscriptions } from './subscriptions.js';

// The simulator's event side: the subscription APIs (selling notifications, Marketing Stream),
// the hub that turns what happens into messages for subscribers, the signed push delivery,
// the live market, and their control routes. See docs/marketplace-events.md for the contract.

export interface EventsOptions {
  /** Live market tick interval in ms; 0 (the default here) leaves it stopped. */
  marketPaceMs?: number;
  /** How long a new stream subscription stays PENDING_CONFIRMATION. Default 1 s. */
  streamConfirmMs?: number;
  delivery?: Partial<DeliveryOptions>;
}

/** The options the standalone simulator and the service's built-in one take from the environment. */
export const eventsOptionsFrom = (config: Config): EventsOptions => ({
  marketPaceMs: config.SIMULATOR_MARKET_PACE_MS,
  streamConfirmMs: config.SIMULATOR_STREAM_CONFIRM_MS,
  delivery: { attempts: config.SIMULATOR_DELIVERY_ATTEMPTS, retryBaseMs: config.SIMULATOR_DELIVERY_RETRY_MS },
});

export interface EventsDeps {
  seed: number;
  seller: FictionalSeller;
  selling: SellingData;
  ads: AdsState;
  tokens: TokenStore;
  now: () => number;
}

export interface SimEvents {
  /** For the Reports API: raises the finished-processing notifications. */
  jobFinished(job: FinishedJob): void;
  close(): void;
}

export function registerEvents(app: FastifyInstance, deps: EventsDeps, options: EventsOptions = {}): SimEvents {
  const subscriptions = createSubscriptions();
  const delivery = createDelivery({ ...DEFAULT_DELIVERY, ...options.delivery });
  const applicationId = `amzn1.sellerapps.app.${stableId('application', deps.seed)}`;
  const hub = createEventHub(subscriptions, delivery, applicationId, deps.now);
  const sources: EventSources = {
    seed: deps.seed,
    seller: deps.seller,
    selling: deps.selling,
    ads: deps.ads,
    competition: createCompetition(deps.seed),
    hub,
    now: deps.now,
    market: { accountStatus: 'NORMAL', issued: 0, budgetUsage: new Map(), announced: new Map(), versions: new Map() },
  };
  deps.selling.listings.onChange((before, after) => listingChanged(sources, before, after));
  deps.ads.onChange((change) =>
    adsEntityChanged(sources, change.profileId, change.resource as SpResource, change.after),
  );
  const market = createMarket(sources, options.marketPaceMs ?? 0);

  registerNotificationsApi(app, deps.seller, deps.tokens, subscriptions);
  const control = { confirmDelayMs: options.streamConfirmMs ?? 1_000, failConfirmation: false };
  let stopConfirmations = () => {};
  void app.register(async (scope) => {
    acceptVendorJson(scope);
    stopConfirmations = registerStreamApi(
      scope,
      subscriptions,
      [adsAuth(deps.tokens), requireScope(deps.ads)],
      control,
      deps.now,
    );
  });
  registerDeliveryFaults(app, delivery);
  registerEventControl(app, sources, hub, delivery, market);

  return {
    jobFinished: (job) => jobFinished(sources, job),
    close() {
      market.close();
      stopConfirmations();
      delivery.close();
    },
  };
}
