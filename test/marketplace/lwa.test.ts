import { expect } from 'chai';
import { MarketplaceError } from '../../src/marketplace/clients/errors.js';
import { createLwaClient } from '../../src/marketplace/clients/lwa.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import {
  clientsFor,
  QUICK_RETRY,
  rejectionOf,
  requestsTo,
  resetSimulator,
  SELLING_TOKEN,
  startSimulator,
} from '../support/marketplace.js';

describe('marketplace: LWA token exchange', () => {
  let simulator: Simulator;
  let baseUrl: string;
  const exchanges = () => requestsTo(baseUrl, 'POST', '/auth/o2/token');

  before(async () => ({ simulator, baseUrl } = await startSimulator()));
  after(() => simulator.close());
  beforeEach(() => resetSimulator(baseUrl));

  it('exchanges a refresh token once and serves the cached access token after', async () => {
    const { lwa } = clientsFor(simulator);
    const first = await lwa.getAccessToken(SELLING_TOKEN);
    const second = await lwa.getAccessToken(SELLING_TOKEN);
    expect(first).to.be.a('string').and.not.equal('');
    expect(second).to.equal(first);
    const log = await exchanges();
    expect(log).to.have.length(1);
    expect(log[0]!.body).to.include({
      grant_type: 'refresh_token',
      refresh_token: SELLING_TOKEN,
      client_id: 'simulator-client',
    });
  });

  it('shares one exchange between concurrent callers', async () => {
    const { lwa } = clientsFor(simulator);
    const tokens = await Promise.all([1, 2, 3, 4].map(() => lwa.getAccessToken(SELLING_TOKEN)));
    expect(new Set(tokens).size).to.equal(1);
    expect(await exchanges()).to.have.length(1);
  });

  it('renews shortly before the token expires', async () => {
    let clock = Date.now();
    const { lwa } = clientsFor(simulator, QUICK_RETRY, { now: () => clock, refreshMarginMs: 60_000 });
    const first = await lwa.getAccessToken(SELLING_TOKEN);
    clock += 3_600_000 - 61_000;
    expect(await lwa.getAccessToken(SELLING_TOKEN)).to.equal(first);
    clock += 2_000; // now inside the last minute of the token's hour
    expect(await lwa.getAccessToken(SELLING_TOKEN)).to.not.equal(first);
    expect(await exchanges()).to.have.length(2);
  });

  it('answers an unknown refresh token with invalid_grant, not retried', async () => {
    const { lwa } = clientsFor(simulator);
    const error = await rejectionOf(lwa.getAccessToken('Atzr|nobody'));
    expect(error).to.be.instanceOf(MarketplaceError);
    expect(error).to.include({ status: 400, code: 'invalid_grant', retryable: false });
    expect(await exchanges()).to.have.length(1);
  });

  it('answers an unknown client with invalid_client', async () => {
    const lwa = createLwaClient({
      tokenUrl: simulator.endpoints().lwaTokenUrl,
      clientId: 'someone-else',
      clientSecret: 'nope',
      retry: QUICK_RETRY,
    });
    const error = await rejectionOf(lwa.getAccessToken(SELLING_TOKEN));
    expect(error).to.be.instanceOf(MarketplaceError);
    expect(error).to.include({ status: 401, code: 'invalid_client', retryable: false });
  });
});
