import { automationDecider } from '../../domain/automation/decide.js';
import { liveSlotDecider, liveSlotId } from '../../domain/automation/live-slot.js';
import { DomainError } from '../../domain/shared/errors.js';
import { WrongExpectedVersion } from '../../eventstore/port.js';
import { aggregateStream } from '../shared/handler.js';
import { decideAndRecord, ownedAutomation, who, type AutomationCall } from './context.js';

// spec 3.1: `update_automation { activate: true }`. Three appends, in this order:
//   1. the live slot of (account, event type) names the automation: claimed once, never retried,
//      so of two activations racing for one event type one wins and the other is refused
//      (`activation_conflict`);
//   2. AutomationActivated on the automation;
//   3. AutomationDeactivated (replaced) on the automation the slot named before.
// The slot is the authority on which automation is live. A crash between the appends leaves the
// slot ahead of the streams; the same call again claims nothing new (the slot already names it)
// and records 2 and 3 from the slot's memory of whom it replaced
// (docs/decisions/032-automation-lifecycle-and-live-slot.md).

export interface Activation {
  /** the automation deactivated because this one went live, if any */
  replaced: string | null;
}

export async function activateAutomation(call: AutomationCall, automation_id: string): Promise<Activation> {
  const owned = await ownedAutomation(call, automation_id);
  const { automation_id: id, account } = owned;
  const stream_type = owned.stream_type!;
  // refuses an archived automation before the slot is touched
  const activate = { type: 'ActivateAutomation' as const, ...who(call, id) };
  automationDecider.decide(activate, owned);
  if (call.simulate) return { replaced: null };

  const slotId = liveSlotId(account.id, stream_type);
  const slot = { account_id: account.id, stream_type, automation_id: id, at: call.at.toISOString() };
  try {
    await decideAndRecord(call, liveSlotDecider, slotId, { type: 'ClaimLive', ...slot }, 1);
  } catch (err) {
    if (!(err instanceof WrongExpectedVersion)) throw err;
    throw new DomainError(
      'activation_conflict',
      `automation_id: another automation for ${stream_type} on account ${account.id} was activated at the same moment; automation '${id}' stays as it was (edits in this call are saved); list_automations shows which is live`,
      { argument: 'automation_id' },
    );
  }
  try {
    await decideAndRecord(call, automationDecider, id, activate);
  } catch (err) {
    // archived between our read and the claim: give the slot back rather than leave it naming an archived automation
    await decideAndRecord(call, liveSlotDecider, slotId, { type: 'ReleaseLive', ...slot });
    throw err;
  }
  const { state } = await aggregateStream(call.store, liveSlotDecider, slotId);
  const replaced = state.live === id && state.previous !== id ? state.previous : null;
  if (replaced)
    await decideAndRecord(call, automationDecider, replaced, {
      type: 'DeactivateAutomation',
      ...who(call, replaced),
      replaced_by: id,
    });
  return { replaced };
}
