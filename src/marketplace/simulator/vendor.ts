import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Profile } from '../clients/ads-types.js';
import type { Account, MarketplaceParticipation } from '../clients/selling-types.js';
import { catalogFor, type Scale } from './catalog.js';
import { MARKETPLACES, participationIn } from './marketplaces.js';
import { createRng } from './prng.js';
import type { TokenStore } from './tokens.js';

// The simulator's fictional vendor: a brand that sells its products to Amazon rather than to
// shoppers. Its selling API token reads the sellers API (answered here as the vendor) and the
// vendor reports, and nothing a seller has (listings, orders, FBA inventory, seller reports:
// those routes refuse its token); its ads token lists vendor-type profiles.

export interface FictionalVendor {
  /** The vendor code, as vendor reports and promotions name it. */
  vendorCode: string;
  /** The ads API's accountInfo.id of a vendor profile. */
  entityId: string;
  name: string;
  participations: MarketplaceParticipation[];
  account: Account;
  profiles: Profile[];
  /** The ASINs the vendor supplies (the same in every marketplace). */
  asins(): readonly string[];
}

const VENDOR_SALT = 0x7e4d0c1b;
/** Vendor report rows grow with ASINs × days × views; the bench profile doesn't sync them. */
const MAX_VENDOR_ASINS = 2_000;
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function createFictionalVendor(seed: number, scale?: Partial<Scale>): FictionalVendor {
  const rng = createRng(seed ^ VENDOR_SALT);
  const name = `${rng.pick(['Alder', 'Brightwater', 'Cobalt', 'Driftwood', 'Evergreen'])} ${rng.pick(['Brands', 'Consumer Products', 'Manufacturing'])} Inc.`;
  const vendorCode = rng.chars(5, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
  const entityId = `ENTITY${rng.chars(13, ALNUM)}`;
  const participations = MARKETPLACES.map((m) => participationIn(m, name, false));
  const account: Account = {
    marketplaceParticipationList: participations,
    businessType: 'PRIVATE_LIMITED',
    sellingPlan: 'PROFESSIONAL',
    business: {
      name,
      registeredBusinessAddress: {
        addressLine1: `${rng.int(10, 999)} Industrial Way`,
        city: 'Portland',
        stateOrProvinceCode: 'OR',
        postalCode: '97201',
        countryCode: 'US',
      },
    },
  };
  const profiles = MARKETPLACES.map((m) => ({
    profileId: rng.int(1_000_000_000_000_000, 8_999_999_999_999_999),
    countryCode: m.adsCountryCode,
    currencyCode: m.currencyCode,
    timezone: m.timezone,
    accountInfo: { marketplaceStringId: m.id, id: entityId, type: 'vendor' as const, name, validPaymentMethod: true },
  }));
  let asins: string[] | undefined;
  return {
    vendorCode,
    entityId,
    name,
    participations,
    account,
    profiles,
    asins() {
      if (!asins) {
        const products = catalogFor(seed ^ VENDOR_SALT, scale);
        asins = Array.from(
          { length: Math.min(MAX_VENDOR_ASINS, Math.ceil(products.productCount * 0.6)) },
          (_, i) => products.productAt(i).asin,
        );
      }
      return asins;
    },
  };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Which principal a selling API access token belongs to, if any. */
export function sellingPrincipal(tokens: TokenStore, request: FastifyRequest): 'seller' | 'vendor' | undefined {
  const token = header(request, 'x-amz-access-token');
  if (tokens.verify(token, 'selling').ok) return 'seller';
  if (tokens.verify(token, 'vendor-selling').ok) return 'vendor';
  return undefined;
}

/** Answers the sellers API and the ads profiles for the vendor's tokens; every other route's own
 * check refuses them (they are issued for the vendor audiences). */
export function registerVendor(app: FastifyInstance, vendor: FictionalVendor, tokens: TokenStore): void {
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0];
    if (request.method !== 'GET') return;
    if (path === '/sellers/v1/marketplaceParticipations' || path === '/sellers/v1/account') {
      if (!tokens.verify(header(request, 'x-amz-access-token'), 'vendor-selling').ok) return;
      reply.header('x-amzn-RateLimit-Limit', '0.016');
      return reply.send({ payload: path.endsWith('account') ? vendor.account : vendor.participations });
    }
    if (path === '/v2/profiles') {
      const verdict = tokens.verify(/^Bearer (.+)$/i.exec(header(request, 'authorization') ?? '')?.[1], 'vendor-ads');
      if (!verdict.ok || header(request, 'amazon-advertising-api-clientid') !== verdict.grant.clientId) return;
      return reply.send(vendor.profiles);
    }
  });
}
