import { expect } from 'chai';
import { loadConfig } from '../../src/infra/config.js';
import { DEMO_REFRESH_TOKENS } from '../../src/marketplace/simulator/index.js';
import { connectionCredentials, credentialSets } from '../../src/workers/credentials.js';

const REAL = {
  SELLING_API_URL: 'https://sellingpartnerapi-na.amazon.com',
  ADS_API_URL: 'https://advertising-api.amazon.com',
  LWA_TOKEN_URL: 'https://api.amazon.com/auth/o2/token',
  // a real deployment signs its event destinations with its own secret
  INGESTION_SECRET: 'production-secret',
};

describe('credential sets from configuration', () => {
  it('with the simulator: the seller set and the vendor set are the simulator seller and vendor', () => {
    const sets = credentialSets(loadConfig({}));
    expect(sets.get('seller')).to.deep.equal({
      selling_refresh_token: 'Atzr|demo-seller',
      ads_refresh_token: 'Atzr|demo-advertiser',
    });
    expect(sets.get('vendor')).to.deep.equal({
      selling_refresh_token: 'Atzr|demo-vendor',
      ads_refresh_token: 'Atzr|demo-vendor-advertiser',
    });
    for (const set of sets.values())
      for (const token of [set.selling_refresh_token, set.ads_refresh_token])
        expect(DEMO_REFRESH_TOKENS).to.have.property(token!);
  });

  it('against real endpoints there is no vendor set unless configured; empty tokens disable a connection', () => {
    expect(
      credentialSets(loadConfig({ ...REAL, SELLING_REFRESH_TOKEN: 'Atzr|s', ADS_REFRESH_TOKEN: '' })).has('vendor'),
    ).to.equal(false);
    const sets = credentialSets(
      loadConfig({
        ...REAL,
        SELLING_REFRESH_TOKEN: 'Atzr|s',
        ADS_REFRESH_TOKEN: '',
        VENDOR_SELLING_REFRESH_TOKEN: 'Atzr|v',
        VENDOR_SELLING_PARTNER_ID: 'AV1',
      }),
    );
    expect(sets.get('seller')).to.deep.equal({ selling_refresh_token: 'Atzr|s' });
    expect(sets.get('vendor')).to.deep.equal({ selling_refresh_token: 'Atzr|v', selling_partner_id: 'AV1' });
    expect(
      credentialSets(loadConfig({ VENDOR_SELLING_REFRESH_TOKEN: '', VENDOR_ADS_REFRESH_TOKEN: '' })).has('vendor'),
    ).to.equal(false);
  });

  it("a connection's credentials are the set it names; one recorded before sets were named is the seller's", async () => {
    const sets = credentialSets(loadConfig({}));
    const lookup = (name: string) => sets.get(name);
    expect((await connectionCredentials(lookup, { credentials: 'vendor' })).selling_refresh_token).to.equal(
      'Atzr|demo-vendor',
    );
    expect((await connectionCredentials(lookup, {})).selling_refresh_token).to.equal('Atzr|demo-seller');
    expect(await connectionCredentials(lookup, { credentials: 'gone' })).to.deep.equal({});
  });
});
