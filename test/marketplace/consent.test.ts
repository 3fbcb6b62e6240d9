import { expect } from 'chai';
import { createAdsClient } from '../../src/marketplace/clients/ads.js';
import { MarketplaceError } from '../../src/marketplace/clients/errors.js';
import { createLwaClient } from '../../src/marketplace/clients/lwa.js';
import { createSellingClient } from '../../src/marketplace/clients/selling.js';
import { DEFAULT_LWA_CLIENT, type Simulator } from '../../src/marketplace/simulator/app.js';
import { consent } from '../support/consent.js';
import { QUICK_RETRY, rejectionOf, revokeRefreshToken, startSimulator } from '../support/marketplace.js';

describe('marketplace: consent pages and the authorization_code grant', () => {
  let simulator: Simulator;
  let baseUrl: string;
  const redirectUri = 'https://app.example.com/connections/selling/callback';
  const lwa = () =>
    createLwaClient({ tokenUrl: `${baseUrl}/auth/o2/token`, ...DEFAULT_LWA_CLIENT, retry: QUICK_RETRY });
  const sellingConsentUrl = (state: string, extra: Record<string, string> = {}) =>
    `${baseUrl}/apps/authorize/consent?${new URLSearchParams({
      application_id: DEFAULT_LWA_CLIENT.applicationId!,
      state,
      redirect_uri: redirectUri,
      ...extra,
    })}`;
  const adsConsentUrl = (state: string) =>
    `${baseUrl}/ap/oa?${new URLSearchParams({
      client_id: DEFAULT_LWA_CLIENT.clientId,
      scope: 'advertising::campaign_management',
      response_type: 'code',
      redirect_uri: redirectUri,
      state,
    })}`;
  const selling = (refreshToken: string) =>
    createSellingClient({ endpoint: baseUrl, lwa: lwa(), refreshToken, retry: QUICK_RETRY });

  before(async () => ({ simulator, baseUrl } = await startSimulator()));
  after(() => simulator.close());

  it('gives each new seller a selling partner id and data of its own, reached with the redeemed refresh token', async () => {
    const back = await consent(sellingConsentUrl('s-1', { version: 'beta' }));
    expect(`${back.origin}${back.pathname}`).to.equal(redirectUri);
    expect(back.searchParams.get('state')).to.equal('s-1');
    const partner = back.searchParams.get('selling_partner_id')!;
    expect(partner)
      .to.match(/^A[A-Z0-9]{13}$/)
      .and.not.equal(simulator.seller.merchantId);

    const grant = await lwa().exchangeCode(back.searchParams.get('spapi_oauth_code')!, redirectUri);
    expect(grant.refreshToken).to.match(/^Atzr\|/);
    const account = await selling(grant.refreshToken).getAccount();
    const tenant = simulator.consents.seller(partner)!;
    expect(account.business?.name).to.equal(`${tenant.name} LLC`);
    expect(account.business?.name).to.not.equal(simulator.seller.account.business?.name);

    const other = await consent(sellingConsentUrl('s-2'));
    expect(other.searchParams.get('selling_partner_id')).to.not.equal(partner);
    // the default seller's own tokens still read the default seller
    expect((await selling('Atzr|demo-seller').getAccount()).business?.name).to.equal(
      simulator.seller.account.business?.name,
    );
  });

  it('redeems a code once, only with the redirect_uri and client it was issued for', async () => {
    const code = (await consent(sellingConsentUrl('s-3'))).searchParams.get('spapi_oauth_code')!;
    const wrongUri = await rejectionOf(lwa().exchangeCode(code, 'https://evil.example.com/callback'));
    expect(wrongUri).to.be.instanceOf(MarketplaceError).and.include({ code: 'invalid_grant' });
    // the refused attempt used it up, like any presentation of a code
    expect(await rejectionOf(lwa().exchangeCode(code, redirectUri))).to.include({ code: 'invalid_grant' });

    const fresh = (await consent(sellingConsentUrl('s-4'))).searchParams.get('spapi_oauth_code')!;
    const otherClient = createLwaClient({
      tokenUrl: `${baseUrl}/auth/o2/token`,
      clientId: 'another-client',
      clientSecret: 'x',
      retry: QUICK_RETRY,
    });
    expect(await rejectionOf(otherClient.exchangeCode(fresh, redirectUri))).to.include({ code: 'invalid_client' });
    await lwa().exchangeCode(fresh, redirectUri);
    expect(await rejectionOf(lwa().exchangeCode(fresh, redirectUri))).to.include({ code: 'invalid_grant' });
  });

  it('authorizes advertising for a seller who consented before: its profiles name its selling partner id', async () => {
    const partner = (await consent(sellingConsentUrl('s-5'))).searchParams.get('selling_partner_id')!;
    const back = await consent(adsConsentUrl('a-1'), partner);
    expect(back.searchParams.get('state')).to.equal('a-1');
    const grant = await lwa().exchangeCode(back.searchParams.get('code')!, redirectUri);
    const ads = createAdsClient({
      endpoint: baseUrl,
      lwa: lwa(),
      refreshToken: grant.refreshToken,
      retry: QUICK_RETRY,
    });
    const profiles = await ads.listProfiles();
    expect(profiles).to.not.be.empty;
    expect(profiles.every((p) => p.accountInfo.id === partner)).to.equal(true);
  });

  it('refuses a revoked consented refresh token, and a consent given again authorizes anew', async () => {
    const back = await consent(sellingConsentUrl('s-6'));
    const partner = back.searchParams.get('selling_partner_id')!;
    const { refreshToken } = await lwa().exchangeCode(back.searchParams.get('spapi_oauth_code')!, redirectUri);
    await revokeRefreshToken(baseUrl, refreshToken, true);
    expect(await rejectionOf(selling(refreshToken).getAccount())).to.include({ code: 'invalid_grant' });
    const again = await consent(sellingConsentUrl('s-7'), partner);
    expect(again.searchParams.get('selling_partner_id')).to.equal(partner);
    const renewed = await lwa().exchangeCode(again.searchParams.get('spapi_oauth_code')!, redirectUri);
    expect((await selling(renewed.refreshToken).getAccount()).business?.name).to.be.a('string');
  });

  it('answers a page that says why for an unknown application, a bad scope or a missing state', async () => {
    const unknown = await fetch(sellingConsentUrl('s', { application_id: 'amzn1.sp.solution.nope' }));
    expect(unknown.status).to.equal(400);
    expect(await unknown.text()).to.include('No application amzn1.sp.solution.nope');
    const scope = await fetch(adsConsentUrl('a').replace('campaign_management', 'everything'));
    expect(scope.status).to.equal(400);
    expect(await scope.text()).to.include('scope must be advertising::campaign_management');
    const noState = await fetch(sellingConsentUrl('').replace('state=&', ''));
    expect(noState.status).to.equal(400);
    expect(await noState.text()).to.include('state is required');
  });
});
