import { expect } from 'chai';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import {
  ADS_TOKEN,
  clientsFor,
  requestsTo,
  resetSimulator,
  SELLING_TOKEN,
  startSimulator,
} from '../support/marketplace.js';

// The simulator checks the access token on every API call, answering refusals in each
// API's own dialect; raw fetch here, since the clients always send a token.
describe('marketplace: access tokens on API routes', () => {
  let simulator: Simulator;
  let baseUrl: string;
  let clock = Date.now();

  before(async () => ({ simulator, baseUrl } = await startSimulator({ now: () => clock })));
  after(() => simulator.close());
  beforeEach(() => resetSimulator(baseUrl));

  it('refuses a selling API call without a token with 403 and the errors list', async () => {
    const response = await fetch(`${baseUrl}/sellers/v1/marketplaceParticipations`);
    expect(response.status).to.equal(403);
    const body = (await response.json()) as { errors: Array<{ code: string; message: string }> };
    expect(body.errors[0]).to.include({ code: 'Unauthorized', message: 'Access to requested resource is denied.' });
  });

  it('refuses an ads API call without a token with 401 UNAUTHORIZED', async () => {
    const response = await fetch(`${baseUrl}/v2/profiles`, {
      headers: { 'amazon-advertising-api-clientid': 'simulator-client' },
    });
    expect(response.status).to.equal(401);
    expect(await response.json()).to.include({ code: 'UNAUTHORIZED' });
  });

  it('refuses an ads call whose client id header is missing, and tokens used on the other API', async () => {
    const { lwa } = clientsFor(simulator);
    const adsToken = await lwa.getAccessToken(ADS_TOKEN);
    const sellingToken = await lwa.getAccessToken(SELLING_TOKEN);
    const noClientId = await fetch(`${baseUrl}/v2/profiles`, { headers: { authorization: `Bearer ${adsToken}` } });
    expect(noClientId.status).to.equal(401);
    const sellingOnAds = await fetch(`${baseUrl}/v2/profiles`, {
      headers: { authorization: `Bearer ${sellingToken}`, 'amazon-advertising-api-clientid': 'simulator-client' },
    });
    expect(sellingOnAds.status).to.equal(401);
    const adsOnSelling = await fetch(`${baseUrl}/sellers/v1/account`, { headers: { 'x-amz-access-token': adsToken } });
    expect(adsOnSelling.status).to.equal(403);
  });

  it('refuses an expired token, and the client recovers by exchanging again', async () => {
    const { lwa, selling } = clientsFor(simulator);
    const token = await lwa.getAccessToken(SELLING_TOKEN);
    clock += 3_601_000;
    const response = await fetch(`${baseUrl}/sellers/v1/account`, { headers: { 'x-amz-access-token': token } });
    expect(response.status).to.equal(403);
    const body = (await response.json()) as { errors: Array<{ details: string }> };
    expect(body.errors[0]!.details).to.match(/expired/);

    // The client still believes its cached token (its clock did not move): the refusal makes it renew.
    const account = await selling.getAccount();
    expect(account.sellingPlan).to.equal('PROFESSIONAL');
    expect(await requestsTo(baseUrl, 'POST', '/auth/o2/token')).to.have.length(2);
    expect((await requestsTo(baseUrl, 'GET', '/sellers/v1/account')).map((r) => r.status)).to.deep.equal([
      403, 403, 200,
    ]);
  });
});
