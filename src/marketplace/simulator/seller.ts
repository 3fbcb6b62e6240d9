import type { Profile } from '../clients/ads-types.js';
import type { Account, MarketplaceParticipation } from '../clients/selling-types.js';
import { MARKETPLACES, participationIn } from './marketplaces.js';
import { createRng } from './prng.js';

// The simulator's fictional seller, derived from the seed alone.

export interface FictionalSeller {
  /** Merchant token; the ads API's accountInfo.id. */
  merchantId: string;
  name: string;
  participations: MarketplaceParticipation[];
  account: Account;
  profiles: Profile[];
}

const FIRST = [
  'Northwind',
  'Bluebird',
  'Copperleaf',
  'Harbor',
  'Silverline',
  'Maple & Pine',
  'Lakeside',
  'Red Fern',
  'Granite',
  'Sunbeam',
];
const SECOND = ['Goods', 'Supply Co.', 'Trading', 'Outfitters', 'Home', 'Essentials', 'Mercantile', 'Workshop'];
const GIVEN = ['Avery', 'Jordan', 'Morgan', 'Riley', 'Casey', 'Quinn', 'Harper', 'Rowan'];
const FAMILY = ['Lindqvist', 'Okafor', 'Tanaka', 'Moreau', 'Fischer', 'Alvarez', 'Novak', 'Brennan'];
const STREETS = ['Pine St', 'Harbor Ave', 'Elm Way', 'Lake Rd', 'Cedar Blvd'];
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function createFictionalSeller(seed: number): FictionalSeller {
  const rng = createRng(seed);
  const name = `${rng.pick(FIRST)} ${rng.pick(SECOND)}`;
  const merchantId = `A${rng.chars(13, ALNUM)}`;
  const participations = MARKETPLACES.map((m) => participationIn(m, name, rng.next() < 0.2));
  const address = () => ({
    addressLine1: `${rng.int(10, 9999)} ${rng.pick(STREETS)}`,
    city: 'Seattle',
    stateOrProvinceCode: 'WA',
    postalCode: `981${rng.int(0, 99).toString().padStart(2, '0')}`,
    countryCode: 'US',
  });
  const account: Account = {
    marketplaceParticipationList: participations,
    businessType: 'PRIVATE_LIMITED',
    sellingPlan: 'PROFESSIONAL',
    business: {
      name: `${name} LLC`,
      registeredBusinessAddress: address(),
      companyRegistrationNumber: rng.chars(9, '0123456789'),
    },
    primaryContact: { name: `${rng.pick(GIVEN)} ${rng.pick(FAMILY)}`, address: address() },
  };
  const profiles = MARKETPLACES.map((m) => ({
    // Sixteen digits, like the provider's, and still an exact JSON number.
    profileId: rng.int(1_000_000_000_000_000, 8_999_999_999_999_999),
    countryCode: m.adsCountryCode,
    currencyCode: m.currencyCode,
    dailyBudget: 999_999_999,
    timezone: m.timezone,
    accountInfo: { marketplaceStringId: m.id, id: merchantId, type: 'seller' as const, name, validPaymentMethod: true },
  }));
  return { merchantId, name, participations, account, profiles };
}
