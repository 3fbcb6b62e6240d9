import { expect } from 'chai';
import { newId } from '../../src/domain/shared/ids.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { dispatchClients } from '../../src/workers/dispatch/clients.js';
import type { DispatchReceipt } from '../../src/workers/dispatch/receipts.js';
import { startHarness, type Harness } from '../support/observed.js';

// The dispatcher's clients follow the account's connection as the read model has it now: an
// account reconnected with another credential set is sent with that set's tokens at its next
// request, not with the clients made for its first one.

describe('dispatch clients', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startHarness([], [], Date.parse('2026-03-10T09:00:00Z'));
  });
  after(() => h.close());

  it("use the credential set the account's connections name at each request", async () => {
    const user_id = newId();
    const account_id = await h.connect('seller', user_id);
    const seller = { selling_refresh_token: 'Atzr|demo-seller', ads_refresh_token: 'Atzr|demo-advertiser' };
    // 'revoked' names a set the configuration no longer has: no tokens
    const { clientsFor } = dispatchClients({
      db: h.db,
      lwa: h.deps('').lwa,
      endpoints: h.simulator.endpoints(),
      credentials: (name) => (name === 'seller' ? seller : undefined),
      timeoutMs: 1000,
    });
    const receipt = { account_id, target: { type: 'Campaign', id: 'c' }, provider: {} } as unknown as DispatchReceipt;
    expect(await clientsFor(receipt, h.db)).to.have.property('ads');

    const { ctx, lwa, endpoints, logger } = h.deps('');
    await syncConnections({ ctx, lwa, endpoints, logger }, { user_id, account_id, credentials: 'revoked', ...seller });
    await h.projector.whenCaughtUp();
    let error: Error | null = null;
    await clientsFor(receipt, h.db).catch((err: Error) => (error = err));
    expect(error, 'an account whose set is gone has no tokens to send with').to.not.equal(null);
  });
});
