import type { Decider } from '../shared/decider.js';
import { liveSlotEventSchemas, type LiveSlotEvent } from './events.js';

// The live slot of one event type on one account: which automation is live. Activation claims it
// with the revision it read and without retrying, so of two activations racing for one event type
// exactly one appends and the other is refused (`activation_conflict`, spec 3.1).

export interface LiveSlotState {
  live: string | null;
  /** the automation the last change took the slot from: an activation retried after a crash
   * still knows whom it replaced, and deactivates it (docs/decisions/032-automation-lifecycle-and-live-slot.md) */
  previous: string | null;
}

type Slot = { account_id: string; stream_type: string; automation_id: string; at: string };
export type LiveSlotCommand = (Slot & { type: 'ClaimLive' }) | (Slot & { type: 'ReleaseLive' });

export const liveSlotId = (account_id: string, stream_type: string): string => `${account_id}.${stream_type}`;

export function decide(command: LiveSlotCommand, state: LiveSlotState): LiveSlotEvent[] {
  const { account_id, stream_type, automation_id, at } = command;
  const change = (to: string | null): LiveSlotEvent[] => [
    { type: 'LiveAutomationChanged', data: { account_id, stream_type, automation_id: to, previous: state.live, at } },
  ];
  if (command.type === 'ClaimLive') return state.live === automation_id ? [] : change(automation_id);
  return state.live === automation_id ? change(null) : [];
}

export const liveSlotDecider: Decider<LiveSlotCommand, LiveSlotState, LiveSlotEvent> = {
  aggregate: 'automation_live',
  schemas: liveSlotEventSchemas,
  initialState: () => ({ live: null, previous: null }),
  evolve: (_state, event) => ({ live: event.data.automation_id, previous: event.data.previous }),
  decide,
};
