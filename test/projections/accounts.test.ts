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
import { findActiveToken, findUser, isOperator, listOperators } from '../../src/projections/auth/queries.js';
import {
  deleteUser,
  issueApiToken,
  registerUser,
  revokeApiToken,
  setOperatorRole,
} from '../../src/commands/user/execute.js';
import { hashToken } from '../../src/domain/user/token.js';
import { READ_SCOPE } from '../../src/domain/user/scopes.js';
import { newId } from '../../src/domain/shared/ids.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { executeAccountCommand } from '../../src/commands/account/execute.js';
import { MarketplaceError } from '../../src/marketplace/clients/index.js';
import { revokeRefreshToken } from '../support/marketplace.js';
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

  const sync = (reconnect = false) => {
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
        reconnect,
      },
    );
  };
  /** The seller removes (or gives back) the app's authorization behind a refresh token. */
  const revoke = (refresh_token: string, revoked: boolean) =>
    revokeRefreshToken(simulator.endpoints().sellingApiUrl, refresh_token, revoked);
  const requestsTo = (path: string) => simulator.requests.list().filter((r) => r.path === path).length;
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

  it('a connection whose authorization the marketplace refuses for good is recorded inactive, shown not connected, and no longer read', async () => {
    await revoke('Atzr|demo-advertiser', true);
    const startedAt = Date.now();
    expect((await sync()).recorded, 'the deactivation').to.equal(1);
    await projector.whenCaughtUp();
    const [account] = await loadAccounts(db, user_id);
    const { inactive, ...ads } = account!.ads!;
    expect(ads).to.include({ connected: false, active: false });
    expect(inactive!.cause).to.equal('authorization_refused');
    expect(inactive!.detail).to.match(/invalid_grant/);
    expect(Date.parse(inactive!.since)).to.be.within(startedAt - 1000, Date.now());
    const day = new Date(inactive!.since.slice(0, 10) + 'T00:00:00.000Z').getTime();
    expect(inactive!.raw_data_kept_until).to.equal(new Date(day + 30 * 86_400_000).toISOString());
    expect(account!.selling).to.include({ connected: true, active: true, inactive: null });

    const profileReads = requestsTo('/v2/profiles');
    expect((await sync()).recorded, 'an inactive connection is not read again').to.equal(0);
    expect(requestsTo('/v2/profiles')).to.equal(profileReads);
  });

  it('an operator deactivation keeps the connection connected but inactive; a reconnection makes active what the marketplace accepts and fails naming what it still refuses', async () => {
    const ctx = { store, metadata: { actor: { kind: 'user' as const, id: 'cli' } } };
    const at = new Date().toISOString();
    const deactivate = {
      type: 'DeactivateConnection',
      account_id,
      cause: 'operator',
      detail: 'billing ended',
      at,
    } as const;
    expect(await executeAccountCommand(ctx, { ...deactivate, connection: 'selling' })).to.equal(1);
    await projector.whenCaughtUp();
    let [account] = await loadAccounts(db, user_id);
    expect(account!.selling).to.deep.include({
      connected: true,
      active: false,
      inactive: {
        since: at,
        cause: 'operator',
        detail: 'billing ended',
        raw_data_kept_until: new Date(Date.parse(at.slice(0, 10)) + 30 * 86_400_000).toISOString(),
      },
    });
    const sellerReads = requestsTo('/sellers/v1/marketplaceParticipations');
    expect((await sync()).recorded, 'a routine sync reads neither inactive connection').to.equal(0);
    expect(requestsTo('/sellers/v1/marketplaceParticipations')).to.equal(sellerReads);

    const refused = await sync(true).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(MarketplaceError).and.to.include({ code: 'invalid_grant', retryable: false });
    expect((refused as Error).message).to.match(/refuses the ads authorization .* it stays inactive/);
    await projector.whenCaughtUp();
    [account] = await loadAccounts(db, user_id);
    expect(account!.selling, 'the connection it accepts is reconnected').to.include({ active: true, inactive: null });
    expect(account!.ads!.inactive!.cause, 'the refused one stays as it was').to.equal('authorization_refused');

    await revoke('Atzr|demo-advertiser', false);
    const { recorded, active } = await sync(true);
    expect({ recorded, active }).to.deep.equal({ recorded: 1, active: true });
    await projector.whenCaughtUp();
    [account] = await loadAccounts(db, user_id);
    expect(account!.ads).to.include({ connected: true, inactive: null });
  });

  it('projects issued and revoked tokens with their scopes', async () => {
    const ctx = { store, metadata: { actor: { kind: 'user' as const, id: 'test' } } };
    const other = newId();
    await registerUser(ctx, other, 'Linus');
    const { token_id, token, position } = await issueApiToken(ctx, other, 'laptop', [READ_SCOPE]);
    await projector.whenCaughtUp(position);
    expect(await findActiveToken(db, hashToken(token))).to.deep.equal({
      token_id,
      user_id: other,
      scopes: [READ_SCOPE],
    });
    await projector.whenCaughtUp(await revokeApiToken(ctx, other, token_id));
    expect(await findActiveToken(db, hashToken(token))).to.equal(null);
  });

  it("drops a deleted user's tokens and the user", async () => {
    const ctx = { store, metadata: { actor: { kind: 'user' as const, id: 'test' } } };
    const gone = newId();
    await registerUser(ctx, gone, 'Edsger');
    const { token } = await issueApiToken(ctx, gone, 'laptop', [READ_SCOPE]);
    await projector.whenCaughtUp(await deleteUser(ctx, gone));
    expect(await findActiveToken(db, hashToken(token))).to.equal(null);
    expect(await findUser(db, gone)).to.equal(null);
  });

  it('projects the operator role as granted and revoked; a deleted user loses it', async () => {
    const ctx = { store, metadata: { actor: { kind: 'user' as const, id: 'test' } } };
    const [ada, barbara] = [newId(), newId()];
    await registerUser(ctx, ada, 'Ada');
    await registerUser(ctx, barbara, 'Barbara');
    await setOperatorRole(ctx, ada, true, 'grace');
    await projector.whenCaughtUp(await setOperatorRole(ctx, barbara, true, 'grace'));
    expect([await isOperator(db, ada), await isOperator(db, barbara)]).to.deep.equal([true, true]);
    expect(await listOperators(db)).to.include.members([ada, barbara]);
    await projector.whenCaughtUp(await setOperatorRole(ctx, ada, false, 'grace'));
    expect(await isOperator(db, ada)).to.equal(false);
    await projector.whenCaughtUp(await deleteUser(ctx, barbara));
    expect(await isOperator(db, barbara)).to.equal(false);
    expect(await listOperators(db)).to.not.include.members([ada, barbara]);
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
