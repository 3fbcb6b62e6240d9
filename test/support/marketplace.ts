import { createAdsClient } from '../../src/marketplace/clients/ads.js';
import type { RetryPolicy } from '../../src/marketplace/clients/http.js';
import { createLwaClient, type LwaClientOptions } from '../../src/marketplace/clients/lwa.js';
import { createSellingClient } from '../../src/marketplace/clients/selling.js';
import {
  createSimulator,
  DEFAULT_LWA_CLIENT,
  type Simulator,
  type SimulatorOptions,
} from '../../src/marketplace/simulator/app.js';
import type { MarketplaceEndpoints } from '../../src/marketplace/simulator/index.js';
import type { FaultRuleInput } from '../../src/marketplace/simulator/faults.js';
import type { LoggedRequest } from '../../src/marketplace/simulator/request-log.js';
import type { AppliedChange } from '../../src/marketplace/simulator/ads/sp-state.js';
import type { Submission } from '../../src/marketplace/simulator/selling/listings-state.js';
import { cursorKey } from '../../src/catalog/live-read/cursor.js';
import type { LiveReadAccess } from '../../src/catalog/live-read/execute.js';
import { SELLER_CREDENTIALS } from '../../src/workers/credentials.js';

// Tests talk to a simulator on a loopback port through the real clients, and read its
// request log and fault API over HTTP like any other test would.

export const SELLING_TOKEN = 'Atzr|demo-seller';
export const ADS_TOKEN = 'Atzr|demo-advertiser';
/** Short backoff so retry tests stay quick. */
export const QUICK_RETRY: Partial<RetryPolicy> = { attempts: 3, minDelayMs: 5, maxDelayMs: 50, timeoutMs: 5_000 };

export async function startSimulator(
  options: SimulatorOptions = {},
): Promise<{ simulator: Simulator; baseUrl: string }> {
  const simulator = createSimulator(options);
  const baseUrl = await simulator.listen({ port: 0, host: '127.0.0.1' });
  return { simulator, baseUrl };
}

/** The real clients, as the demo seller and advertiser, for a simulator in this process or at its endpoints. */
export function clientsFor(
  simulator: Simulator | MarketplaceEndpoints,
  retry: Partial<RetryPolicy> = QUICK_RETRY,
  lwaOptions: Partial<LwaClientOptions> = {},
) {
  const endpoints = 'endpoints' in simulator ? simulator.endpoints() : simulator;
  const lwa = createLwaClient({ tokenUrl: endpoints.lwaTokenUrl, ...DEFAULT_LWA_CLIENT, retry, ...lwaOptions });
  return {
    lwa,
    selling: createSellingClient({ endpoint: endpoints.sellingApiUrl, lwa, refreshToken: SELLING_TOKEN, retry }),
    ads: createAdsClient({ endpoint: endpoints.adsApiUrl, lwa, refreshToken: ADS_TOKEN, retry }),
  };
}

/**
 * The consumer (audience ALL) price of a seller's listings in one marketplace, as the simulator
 * shows it now: `sellerId` is the selling connection's provider id (connection_status).
 */
export const consumerPrices =
  (selling: ReturnType<typeof clientsFor>['selling'], sellerId: string, marketplaceId: string) =>
  async (sku: string): Promise<number> => {
    const { attributes } = await selling.listings.getListingsItem(sellerId, sku, marketplaceId, ['attributes']);
    const offer = (attributes!.purchasable_offer as Array<Record<string, any>>).find((o) => o.audience === 'ALL')!;
    return Number(offer.our_price[0].schedule[0].value_with_tax);
  };

/** What read_amazon_operation reads the simulator with: the demo seller's tokens for connections made with the seller set. */
export function liveReadAccess(
  simulator: Simulator,
  budget: LiveReadAccess['budget'],
  overrides: Partial<LiveReadAccess> = {},
): LiveReadAccess {
  const endpoints = simulator.endpoints();
  return {
    endpoints: { sellingApiUrl: endpoints.sellingApiUrl, adsApiUrl: endpoints.adsApiUrl },
    lwa: createLwaClient({ tokenUrl: endpoints.lwaTokenUrl, ...DEFAULT_LWA_CLIENT }),
    credentials: (name) =>
      name === SELLER_CREDENTIALS ? { selling_refresh_token: SELLING_TOKEN, ads_refresh_token: ADS_TOKEN } : undefined,
    budget,
    cursorKey: cursorKey('live-read-test-key'),
    ...overrides,
  };
}

export async function requestsTo(baseUrl: string, method: string, path: string): Promise<LoggedRequest[]> {
  const query = new URLSearchParams({ method, path });
  const response = await fetch(`${baseUrl}/_sim/requests?${query}`);
  return ((await response.json()) as { requests: LoggedRequest[] }).requests;
}

/** Every change the simulator's Sponsored Products create/update/delete endpoints applied. */
export async function adsChanges(baseUrl: string): Promise<AppliedChange[]> {
  return ((await (await fetch(`${baseUrl}/_sim/ads/changes`)).json()) as { changes: AppliedChange[] }).changes;
}

/** Every Listings Items submission the simulator took. */
export async function listingSubmissions(baseUrl: string): Promise<Submission[]> {
  return ((await (await fetch(`${baseUrl}/_sim/listings/submissions`)).json()) as { submissions: Submission[] })
    .submissions;
}

export async function injectFault(baseUrl: string, rule: FaultRuleInput): Promise<Response> {
  return fetch(`${baseUrl}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });
}

/** The seller removes (`revoked`) or gives back the app's authorization behind a refresh token. */
export async function revokeRefreshToken(baseUrl: string, refresh_token: string, revoked: boolean): Promise<void> {
  const res = await fetch(`${baseUrl}/_sim/lwa/revocations`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token, revoked }),
  });
  if (res.status !== 200) throw new Error(`the simulator refused the revocation: ${res.status} ${await res.text()}`);
}

export async function resetSimulator(baseUrl: string): Promise<void> {
  await fetch(`${baseUrl}/_sim/faults`, { method: 'DELETE' });
  await fetch(`${baseUrl}/_sim/requests`, { method: 'DELETE' });
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a result');
}
