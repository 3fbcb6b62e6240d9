import { expect } from 'chai';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import { createRequestLog, type LoggedRequest } from '../../src/marketplace/simulator/request-log.js';
import { startSimulator } from '../support/marketplace.js';

describe('marketplace simulator: request log', () => {
  let simulator: Simulator;
  let baseUrl: string;
  const LIMIT = 25;
  const logged = async () =>
    ((await (await fetch(`${baseUrl}/_sim/requests`)).json()) as { requests: LoggedRequest[] }).requests;

  before(async () => ({ simulator, baseUrl } = await startSimulator({ requestLogLimit: LIMIT })));
  after(() => simulator.close());

  it('keeps the latest entries in order, never more than its limit, over many times its limit', async () => {
    await fetch(`${baseUrl}/_sim/requests`, { method: 'DELETE' });
    for (let i = 0; i < 10; i++) await fetch(`${baseUrl}/v2/profiles?i=${i}`);
    const partial = await logged();
    expect(partial.map((e) => e.query.i)).to.deep.equal(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

    for (let i = 10; i < LIMIT * 8 + 3; i++) {
      await fetch(`${baseUrl}/v2/profiles?i=${i}`);
      if (i % LIMIT === 0) expect(simulator.requests.list()).to.have.length.at.most(LIMIT);
    }
    const full = await logged();
    expect(full).to.have.length(LIMIT);
    const last = LIMIT * 8 + 2;
    expect(full.map((e) => Number(e.query.i))).to.deep.equal(
      Array.from({ length: LIMIT }, (_, k) => last - LIMIT + 1 + k),
    );
    expect(full.map((e) => e.seq)).to.deep.equal(full.map((_, k) => full[0]!.seq + k));
    expect(full.every((e) => e.status === 401)).to.equal(true);
  });

  it('starts over after a clear', async () => {
    await fetch(`${baseUrl}/v2/profiles?i=a`);
    await fetch(`${baseUrl}/_sim/requests`, { method: 'DELETE' });
    await fetch(`${baseUrl}/v2/profiles?i=b`);
    expect((await logged()).map((e) => e.query.i)).to.deep.equal(['b']);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => createRequestLog(0)).to.throw(RangeError, /not a positive integer/);
    expect(() => createRequestLog(2.5)).to.throw(RangeError, /not a positive integer/);
  });
});
