import { expect } from 'chai';
import { addressSchema } from '../../src/marketplace/clients/selling-types.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import { clientsFor, startSimulator } from '../support/marketplace.js';

const REAL_MARKETPLACES: Record<string, { currency: string; timezone: string }> = {
  ATVPDKIKX0DER: { currency: 'USD', timezone: 'America/Los_Angeles' },
  A2EUQ1WTGCTBG2: { currency: 'CAD', timezone: 'America/Los_Angeles' },
  A1F83G8C2ARO7P: { currency: 'GBP', timezone: 'Europe/London' },
  A1PA6795UKMFR9: { currency: 'EUR', timezone: 'Europe/Paris' },
  A1VC38T7YXB528: { currency: 'JPY', timezone: 'Asia/Tokyo' },
};

async function readSeller(seed: number) {
  const { simulator } = await startSimulator({ seed });
  try {
    const { selling, ads } = clientsFor(simulator);
    return {
      participations: await selling.getMarketplaceParticipations(),
      account: await selling.getAccount(),
      profiles: await ads.listProfiles(),
    };
  } finally {
    await simulator.close();
  }
}

describe('marketplace: the fictional seller through the real clients', () => {
  let simulator: Simulator;
  let clients: ReturnType<typeof clientsFor>;

  before(async () => {
    ({ simulator } = await startSimulator({ seed: 7 }));
    clients = clientsFor(simulator);
  });
  after(() => simulator.close());

  it('lists marketplace participations in the exact wire shape, real ids, JPY included', async () => {
    const participations = await clients.selling.getMarketplaceParticipations();
    expect(participations.map((p) => p.marketplace.id)).to.have.members(Object.keys(REAL_MARKETPLACES));
    for (const p of participations) {
      expect(p.marketplace).to.have.all.keys(
        'id',
        'countryCode',
        'name',
        'defaultCurrencyCode',
        'defaultLanguageCode',
        'domainName',
      );
      expect(p.participation).to.have.all.keys('isParticipating', 'hasSuspendedListings');
      expect(p.marketplace.defaultCurrencyCode).to.equal(REAL_MARKETPLACES[p.marketplace.id]!.currency);
      expect(p.storeName).to.be.a('string').and.not.equal('');
    }
    const jp = participations.find((p) => p.marketplace.countryCode === 'JP');
    expect(jp?.marketplace).to.include({
      id: 'A1VC38T7YXB528',
      defaultCurrencyCode: 'JPY',
      domainName: 'www.amazon.co.jp',
    });
  });

  it('returns the seller account with its business, plan and participations', async () => {
    const account = await clients.selling.getAccount();
    expect(account).to.include({ businessType: 'PRIVATE_LIMITED', sellingPlan: 'PROFESSIONAL' });
    expect(account.business?.name).to.contain(simulator.seller.name);
    expect(account.marketplaceParticipationList).to.have.length(5);
    const address = account.business!.registeredBusinessAddress;
    expect(addressSchema.safeParse(address).success).to.equal(true);
    expect(addressSchema.safeParse({ ...address, countryCode: 'USA' }).success, 'alpha-2 only').to.equal(false);
  });

  it('lists one seller profile per marketplace with its currency and time zone', async () => {
    const profiles = await clients.ads.listProfiles();
    expect(profiles).to.have.length(5);
    for (const profile of profiles) {
      const expected = REAL_MARKETPLACES[profile.accountInfo.marketplaceStringId]!;
      expect(Number.isSafeInteger(profile.profileId)).to.equal(true);
      expect(profile).to.include({ currencyCode: expected.currency, timezone: expected.timezone });
      expect(profile.accountInfo).to.include({
        type: 'seller',
        id: simulator.seller.merchantId,
        name: simulator.seller.name,
      });
      expect(profile.dailyBudget).to.be.a('number');
    }
    expect(profiles.map((p) => p.countryCode)).to.have.members(['US', 'CA', 'UK', 'DE', 'JP']);
    expect(new Set(profiles.map((p) => p.profileId)).size).to.equal(5);
  });

  it('is the same seller for the same seed and a different one for another seed', async () => {
    const [a, again, other] = [await readSeller(11), await readSeller(11), await readSeller(12)];
    expect(again).to.deep.equal(a);
    expect(other.profiles.map((p) => p.profileId)).to.not.have.members(a.profiles.map((p) => p.profileId));
    expect(other.profiles[0]!.accountInfo.id).to.not.equal(a.profiles[0]!.accountInfo.id);
    expect(other.participations.map((p) => p.marketplace.id)).to.deep.equal(
      a.participations.map((p) => p.marketplace.id),
    );
  });
});
