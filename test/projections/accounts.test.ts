import { expect } from 'chai';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { createEventStore, type EventStore, type RecordedEvent } from '../../src/eventstore/index.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { createSimulator, type Simulator } from '../../src/marketplace/simulator/index.js';
import { Projector } from '../../src/projections/projector.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { authProjection } from '../../src/projections/auth/projection.js';
import { loadAccounts } from '../../src/projections/accounts/queries.js';
import { findActiveToken } from '../../src/projections/auth/queries.js';
import { issueApiToken, registerUser, revokeApiToken } from '../../src/commands/users.js';
import { hashToken } from '../../src/domain/user/token.js';
import { newId } from '../../src/domain/shared/ids.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { assertApplyTwiceSameResult, assertRebuildEqualsLive } from '../support/projections.js';

// Accounts and auth read models, filled the real way: the connection sync reads the
// simulator through the real clients and records events; the projector builds the tables.
describe('accounts and auth read models', function () {
  this.timeout(60000);
  let db: Knex;
  let store: EventStore;
  let simulator: Simulator;
  let projector: Projector;
  const logger = pino({ level: 'silent' });
  const projections = [authProjection, accountsProjection];
  const user_id = newId();
  const account_id = newId();

  const sync = () => {
    const endpoints = simulator.endpoints();
    const lwa = createLwaClient({
      tokenUrl: endpoints.lwaTokenUrl,
      clientId: 'simulator-client',
      clientSecret: 'simulator-secret',
    });
    return syncConnections(
      { ctx: { store, metadata: { actor: { kind: 'worker', id: 'test' } } }, lwa, endpoints, logger },
      {
        user_id,
        register_user_as: 'Grace',
        account_id,
        credentials: 'seller',
        selling_refresh_token: 'Atzr|demo-seller',
        ads_refresh_token: 'Atzr|demo-advertiser',
      },
    );
  };
  const allEvents = async (): Promise<RecordedEvent[]> => store.readAll({ after: null, limit: 100_000 });

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
    await migrate(db, migrationSteps(projections, { eventStoreInPostgres: true }));
    simulator = createSimulator({ seed: 7 });
    await simulator.listen();
    projector = new Projector(db, store, projections, { pollMs: 50 });
    projector.start();
  });

  after(async () => {
    await projector.stop();
    await simulator.close();
    await store.close();
    await db.destroy();
  });

  it('records the simulator seller as account events and projects them', async () => {
    const { recorded } = await sync();
    expect(recorded).to.equal(5);
    await projector.whenCaughtUp();
    const [account, ...others] = await loadAccounts(db, user_id);
    expect(others).to.have.length(0);
    expect(account!.id).to.equal(account_id);
    expect(account!.name).to.equal(simulator.seller.account.business!.name);
    expect(account!.selling!.provider_id).to.equal(simulator.seller.merchantId);
    expect(account!.selling!.marketplaces.map((m) => m.marketplace_id).sort()).to.deep.equal(
      simulator.seller.participations.map((p) => p.marketplace.id).sort(),
    );
    expect(account!.ads!.profiles.map((p) => p.provider_profile_id).sort()).to.deep.equal(
      simulator.seller.profiles.map((p) => String(p.profileId)).sort(),
    );
    expect(await loadAccounts(db, newId()), 'another user sees nothing').to.deep.equal([]);
  });

  it('a second sync of unchanged data records nothing', async () => {
    const before = (await allEvents()).length;
    const { recorded } = await sync();
    expect(recorded).to.equal(0);
    expect((await allEvents()).length).to.equal(before);
  });

  it('a changed observation is recorded and projected', async () => {
    simulator.seller.profiles[0]!.accountInfo.validPaymentMethod = false;
    simulator.seller.profiles[0]!.timezone = 'Europe/Berlin';
    const { recorded } = await sync();
    expect(recorded).to.equal(1);
    await projector.whenCaughtUp();
    const [account] = await loadAccounts(db, user_id);
    const changed = account!.ads!.profiles.find(
      (p) => p.provider_profile_id === String(simulator.seller.profiles[0]!.profileId),
    );
    expect(changed!.timezone).to.equal('Europe/Berlin');
  });

  it('records a vendor as a vendor, even with a selling authorization', async () => {
    const endpoints = simulator.endpoints();
    const lwa = createLwaClient({
      tokenUrl: endpoints.lwaTokenUrl,
      clientId: 'simulator-client',
      clientSecret: 'simulator-secret',
    });
    const vendor_id = newId();
    await syncConnections(
      { ctx: { store, metadata: { actor: { kind: 'worker', id: 'test' } } }, lwa, endpoints, logger },
      {
        user_id,
        account_id: vendor_id,
        credentials: 'vendor',
        selling_refresh_token: 'Atzr|demo-vendor',
        ads_refresh_token: 'Atzr|demo-vendor-advertiser',
      },
    );
    await projector.whenCaughtUp();
    const vendor = (await loadAccounts(db, user_id)).find((a) => a.id === vendor_id);
    expect(vendor!.entity_type).to.equal('vendor');
    expect(vendor!.ads!.profiles.length).to.be.greaterThan(0);
  });

  it('projects issued and revoked tokens', async () => {
    const ctx = { store, metadata: { actor: { kind: 'user' as const, id: 'test' } } };
    const other = newId();
    await registerUser(ctx, other, 'Linus');
    const { token_id, token, position } = await issueApiToken(ctx, other, 'laptop');
    await projector.whenCaughtUp(position);
    expect(await findActiveToken(db, hashToken(token))).to.deep.equal({ token_id, user_id: other });
    await projector.whenCaughtUp(await revokeApiToken(ctx, other, token_id));
    expect(await findActiveToken(db, hashToken(token))).to.equal(null);
  });

  for (const projection of projections) {
    it(`${projection.name}: applying the same events twice changes nothing`, async () => {
      const events = (await allEvents()).filter((e) => projection.handles.includes(e.type));
      await assertApplyTwiceSameResult(db, projection, events);
    });
    it(`${projection.name}: rebuilt tables equal the live ones`, async () => {
      await projector.whenCaughtUp();
      await assertRebuildEqualsLive(db, store, projection);
    });
  }
});
