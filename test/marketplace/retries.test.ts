import { expect } from 'chai';
import { MarketplaceError } from '../../src/marketplace/clients/errors.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import {
  clientsFor,
  injectFault,
  QUICK_RETRY,
  rejectionOf,
  requestsTo,
  resetSimulator,
  startSimulator,
} from '../support/marketplace.js';

const PARTICIPATIONS = '/sellers/v1/marketplaceParticipations';

describe('marketplace: retries and errors through the fault injector', () => {
  let simulator: Simulator;
  let baseUrl: string;
  const statuses = async (method: string, path: string) =>
    (await requestsTo(baseUrl, method, path)).map((r) => r.status);
  const faults = async (method: string, path: string) => (await requestsTo(baseUrl, method, path)).map((r) => r.fault);

  before(async () => ({ simulator, baseUrl } = await startSimulator()));
  after(() => simulator.close());
  beforeEach(() => resetSimulator(baseUrl));

  it('retries a 429 and succeeds; the simulator saw two calls', async () => {
    await injectFault(baseUrl, { route: `GET ${PARTICIPATIONS}`, kind: '429', times: 1 });
    const participations = await clientsFor(simulator).selling.getMarketplaceParticipations();
    expect(participations).to.have.length(5);
    expect(await statuses('GET', PARTICIPATIONS)).to.deep.equal([429, 200]);
  });

  it('waits at least as long as Retry-After asks', async () => {
    await injectFault(baseUrl, { route: 'GET /v2/profiles', kind: '429', times: 1, retryAfterSeconds: 1 });
    await clientsFor(simulator).ads.listProfiles();
    const [throttled, retried] = await requestsTo(baseUrl, 'GET', '/v2/profiles');
    expect(Date.parse(retried!.at) - Date.parse(throttled!.at)).to.be.at.least(990);
  });

  it('leaves a wait longer than it sits out to the caller, in retryAfterMs', async () => {
    await injectFault(baseUrl, { route: `GET ${PARTICIPATIONS}`, kind: '429', times: 1, retryAfterSeconds: 120 });
    const error = await rejectionOf(
      clientsFor(simulator, { ...QUICK_RETRY, maxRetryAfterMs: 60_000 }).selling.getMarketplaceParticipations(),
    );
    expect(error).to.include({ status: 429, code: 'QuotaExceeded', retryable: true, retryAfterMs: 120_000 });
    expect(await statuses('GET', PARTICIPATIONS)).to.deep.equal([429]);
  });

  it('gives up after the bounded attempts on 5xx with a retryable MarketplaceError', async () => {
    await injectFault(baseUrl, { route: `GET ${PARTICIPATIONS}`, kind: '5xx', times: 10 });
    const error = await rejectionOf(
      clientsFor(simulator, { ...QUICK_RETRY, attempts: 3 }).selling.getMarketplaceParticipations(),
    );
    expect(error).to.be.instanceOf(MarketplaceError);
    expect(error).to.include({ status: 500, code: 'InternalFailure', retryable: true });
    expect(await statuses('GET', PARTICIPATIONS)).to.deep.equal([500, 500, 500]);
  });

  it('retries a 503 from the ads API in its own error dialect', async () => {
    await injectFault(baseUrl, { route: '* /v2/**', kind: '5xx', status: 503, times: 1 });
    expect(await clientsFor(simulator).ads.listProfiles()).to.have.length(5);
    expect(await statuses('GET', '/v2/profiles')).to.deep.equal([503, 200]);
  });

  it('retries after an attempt times out', async () => {
    await injectFault(baseUrl, { route: 'GET /sellers/v1/*', kind: 'timeout', times: 1 });
    const account = await clientsFor(simulator, { ...QUICK_RETRY, timeoutMs: 300 }).selling.getAccount();
    expect(account.sellingPlan).to.equal('PROFESSIONAL');
    expect(await faults('GET', '/sellers/v1/account')).to.deep.equal(['timeout', null]);
  });

  it('reports a timeout once attempts run out', async () => {
    await injectFault(baseUrl, { route: 'GET /sellers/v1/*', kind: 'timeout', times: 2 });
    const client = clientsFor(simulator, { ...QUICK_RETRY, attempts: 2, timeoutMs: 200 }).selling;
    const error = await rejectionOf(client.getAccount());
    expect(error).to.include({ status: null, code: 'timeout', retryable: true });
  });

  it('retries a GET whose reply was lost after it was handled', async () => {
    await injectFault(baseUrl, { route: `GET ${PARTICIPATIONS}`, kind: 'lost_reply', times: 1 });
    expect(await clientsFor(simulator).selling.getMarketplaceParticipations()).to.have.length(5);
    expect(await faults('GET', PARTICIPATIONS)).to.deep.equal(['lost_reply', null]);
    expect(await statuses('GET', PARTICIPATIONS)).to.deep.equal([null, 200]);
  });

  it('does not retry a rejection', async () => {
    await injectFault(baseUrl, { route: `GET ${PARTICIPATIONS}`, kind: 'reject', times: 1 });
    const error = await rejectionOf(clientsFor(simulator).selling.getMarketplaceParticipations());
    expect(error).to.include({ status: 400, code: 'InvalidInput', retryable: false });
    expect(await statuses('GET', PARTICIPATIONS)).to.deep.equal([400]);
  });

  it('turns an unreachable endpoint into a retryable network_error', async () => {
    const { simulator: gone } = await startSimulator();
    const clients = clientsFor(gone, { ...QUICK_RETRY, attempts: 2 });
    await gone.close();
    const error = await rejectionOf(clients.ads.listProfiles());
    expect(error).to.be.instanceOf(MarketplaceError);
    expect(error).to.include({ status: null, code: 'network_error', retryable: true });
  });
});
