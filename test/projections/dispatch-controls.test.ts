import { expect } from 'chai';
import type { Knex } from 'knex';
import { executeDispatchControlCommand } from '../../src/commands/dispatch-control.js';
import type { DispatchControlCommand } from '../../src/domain/dispatch-control/decide.js';
import { newId } from '../../src/domain/shared/ids.js';
import { createEventStore, type EventStore, type Position, type RecordedEvent } from '../../src/eventstore/index.js';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { DISPATCH_CONTROLS_TABLE, dispatchControlsProjection } from '../../src/projections/dispatch-controls/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { assertApplyTwiceSameResult, assertRebuildEqualsLive } from '../support/projections.js';

// Listing block flags and campaign Automation switches: commands through the handler into the
// real store, projected into rm.dispatch_controls, which the dispatcher reads under its lock.

describe('dispatch controls: block flag and Automation switch', function () {
  this.timeout(30000);
  let db: Knex;
  let store: EventStore;
  let projector: Projector;
  let last: Position | null = null;
  const account = newId();
  const ctx = () => ({ store, metadata: { actor: { kind: 'user' as const, id: 'u-1' } } });
  const run = async (command: DispatchControlCommand) => {
    const result = await executeDispatchControlCommand(ctx(), command);
    last = result.position ?? last;
    return result.events;
  };
  const row = async (target_type: string, target_id: string) => db.withSchema('rm').table(DISPATCH_CONTROLS_TABLE).where({ target_type, target_id }).first();

  before(async () => {
    db = createDb(process.env.DATABASE_URL!);
    store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
    await migrate(db, [dispatchControlsProjection], { eventStoreInPostgres: true });
    projector = new Projector(db, store, [dispatchControlsProjection], { pollMs: 20 });
    projector.start();
  });
  after(async () => {
    await projector.stop();
    await store.close();
    await db.destroy();
  });

  it('records a change of flag only; the read model says which targets are withheld', async () => {
    expect(await run({ type: 'SetListingBlock', account_id: account, listing_id: 'l-1', blocked: false, at: '2026-11-20T10:00:00.000Z' }), 'unblocking an unblocked listing').to.deep.equal([]);
    expect((await run({ type: 'SetListingBlock', account_id: account, listing_id: 'l-1', blocked: true, at: '2026-11-20T10:00:01.000Z' })).map((e) => e.type)).to.deep.equal(['ListingBlockSet']);
    expect(await run({ type: 'SetListingBlock', account_id: account, listing_id: 'l-1', blocked: true, at: '2026-11-20T10:00:02.000Z' })).to.deep.equal([]);
    await run({ type: 'SetCampaignAutomation', account_id: account, campaign_id: 'c-1', enabled: false, at: '2026-11-20T10:00:03.000Z' });
    await run({ type: 'SetCampaignAutomation', account_id: account, campaign_id: 'c-2', enabled: false, at: '2026-11-20T10:00:04.000Z' });
    await run({ type: 'SetCampaignAutomation', account_id: account, campaign_id: 'c-2', enabled: true, at: '2026-11-20T10:00:05.000Z' });
    await projector.whenCaughtUp(last);
    expect(await row('Listing', 'l-1')).to.include({ withheld: true, account_id: account });
    expect(await row('Campaign', 'c-1')).to.include({ withheld: true });
    expect(await row('Campaign', 'c-2')).to.include({ withheld: false });
  });

  it('applying the events twice changes nothing; a rebuild equals the live table', async () => {
    const events: RecordedEvent[] = [];
    for (const id of ['dispatch-control-Listing:l-1', 'dispatch-control-Campaign:c-1', 'dispatch-control-Campaign:c-2']) events.push(...(await store.readStream(id)));
    await assertApplyTwiceSameResult(db, dispatchControlsProjection, events);
    await assertRebuildEqualsLive(db, store, dispatchControlsProjection);
  });
});
