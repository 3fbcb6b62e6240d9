import { expect } from 'chai';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import type { FaultRule } from '../../src/marketplace/simulator/faults.js';
import { injectFault, resetSimulator, startSimulator } from '../support/marketplace.js';

describe('marketplace simulator: fault API', () => {
  let simulator: Simulator;
  let baseUrl: string;
  const listFaults = async () =>
    ((await (await fetch(`${baseUrl}/_sim/faults`)).json()) as { faults: FaultRule[] }).faults;

  before(async () => ({ simulator, baseUrl } = await startSimulator()));
  after(() => simulator.close());
  beforeEach(() => resetSimulator(baseUrl));

  it('refuses a malformed rule', async () => {
    expect((await injectFault(baseUrl, { route: 'sellers', kind: '429' })).status).to.equal(400);
    expect((await injectFault(baseUrl, { route: 'GET /x', kind: 'explode' as '429' })).status).to.equal(400);
    expect(await listFaults()).to.deep.equal([]);
  });

  it('spends a rule per matching request and drops it when used up', async () => {
    await injectFault(baseUrl, { route: 'GET /v2/*', kind: '429', times: 2 });
    expect((await listFaults())[0]).to.include({ route: 'GET /v2/*', kind: '429', times: 2, remaining: 2 });
    expect((await fetch(`${baseUrl}/sellers/v1/account`)).status).to.equal(403); // no match: reaches the auth check
    expect((await fetch(`${baseUrl}/v2/profiles`)).status).to.equal(429);
    expect((await listFaults())[0]).to.include({ remaining: 1 });
    expect((await fetch(`${baseUrl}/v2/profiles`)).status).to.equal(429);
    expect(await listFaults()).to.deep.equal([]);
    expect((await fetch(`${baseUrl}/v2/profiles`)).status).to.equal(401);
  });

  it('clears every rule on DELETE', async () => {
    await injectFault(baseUrl, { route: '* /**', kind: '5xx', times: 5 });
    await fetch(`${baseUrl}/_sim/faults`, { method: 'DELETE' });
    expect(await listFaults()).to.deep.equal([]);
    expect((await fetch(`${baseUrl}/v2/profiles`)).status).to.equal(401);
  });
});
