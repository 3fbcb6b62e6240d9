import { expect } from 'chai';
import { activateAutomation } from '../../src/commands/automation/activation.js';
import type { AutomationCall } from '../../src/commands/automation/context.js';
import { archiveAutomation, createAutomation } from '../../src/commands/automation/lifecycle.js';
import { aggregateStream, handleCommand } from '../../src/commands/shared/handler.js';
import { automationDecider } from '../../src/domain/automation/decide.js';
import { liveSlotDecider, liveSlotId } from '../../src/domain/automation/live-slot.js';
import { newId } from '../../src/domain/shared/ids.js';
import type { AccountView } from '../../src/projections/accounts/queries.js';
import { usePgEventStore } from '../support/pg-event-store.js';

// Activation's three appends (slot, activated, replaced one deactivated) on the real store: a
// crash after any of them is healed by calling the same activation again
// (docs/decisions/032-automation-lifecycle-and-live-slot.md).

describe('automation activation: crash points and their healing', () => {
  const pg = usePgEventStore();
  const stream_type = 'ANY_OFFER_CHANGED';
  let account: AccountView;
  let call: AutomationCall;
  const code = 'function handle(event, context) {}';

  beforeEach(() => {
    account = {
      id: newId(),
      name: 'Shop',
      entity_type: 'seller',
      selling: {
        connected: true,
        active: true,
        id: newId(),
        type: 'SellingPartner',
        provider_id: 'A1',
        marketplaces: [],
        inactive: null,
      },
      ads: null,
    };
    call = {
      store: pg.store,
      userId: 'user-1',
      accounts: [account],
      at: new Date('2026-11-25T10:00:00Z'),
      correlationId: newId(),
      simulate: false,
    };
  });
  const draft = () => createAutomation(call, { account, stream_type, title: 't', code, operation_dependencies: {} });
  const status = async (id: string) => (await aggregateStream(pg.store, automationDecider, id)).state.status;
  const slot = async () =>
    (await aggregateStream(pg.store, liveSlotDecider, liveSlotId(account.id, stream_type))).state;
  /** the first append of an activation of `id`, as a crash right after it leaves things */
  const claimOnly = (id: string) =>
    handleCommand(
      liveSlotDecider,
      liveSlotId(account.id, stream_type),
      { type: 'ClaimLive', account_id: account.id, stream_type, automation_id: id, at: call.at.toISOString() },
      { store: pg.store, metadata: {} },
    );

  it('crash after the claim: the retry activates it and deactivates the one it replaced', async () => {
    const [first, second] = [await draft(), await draft()];
    await activateAutomation(call, first);
    await claimOnly(second);
    expect([await status(first), await status(second)]).to.deep.equal(['live', 'draft']);
    expect(await activateAutomation(call, second)).to.deep.equal({ replaced: first });
    expect([await status(first), await status(second)]).to.deep.equal(['draft', 'live']);
    expect(await slot()).to.deep.equal({ live: second, previous: first });
  });

  it('crash after AutomationActivated, before the deactivation: the retry deactivates the replaced one', async () => {
    const [first, second] = [await draft(), await draft()];
    await activateAutomation(call, first);
    await claimOnly(second);
    await handleCommand(
      automationDecider,
      second,
      { type: 'ActivateAutomation', automation_id: second, by: 'user-1', at: call.at.toISOString() },
      { store: pg.store, metadata: {} },
    );
    expect([await status(first), await status(second)]).to.deep.equal(['live', 'live']);
    await activateAutomation(call, second);
    expect([await status(first), await status(second)]).to.deep.equal(['draft', 'live']);
  });

  it('activating again what is already live records nothing new', async () => {
    const id = await draft();
    await activateAutomation(call, id);
    const before = (await pg.store.readStream(`automation-${id}`)).length;
    expect(await activateAutomation(call, id)).to.deep.equal({ replaced: null });
    expect((await pg.store.readStream(`automation-${id}`)).length).to.equal(before);
  });

  it('archive releases the slot even when the automation never recorded its activation', async () => {
    const id = await draft();
    await claimOnly(id);
    await archiveAutomation(call, id);
    expect(await slot()).to.deep.equal({ live: null, previous: id });
    expect(await status(id)).to.equal('archived');
  });

  it('a simulated activation decides (refusing an archived one) and records nothing', async () => {
    const id = await draft();
    const sim = { ...call, simulate: true };
    expect(await activateAutomation(sim, id)).to.deep.equal({ replaced: null });
    expect(await status(id)).to.equal('draft');
    expect(await slot()).to.deep.equal({ live: null, previous: null });
    await archiveAutomation(call, id);
    const refused = await activateAutomation(sim, id).catch((err: { code: string }) => err.code);
    expect(refused).to.equal('invalid');
  });
});
