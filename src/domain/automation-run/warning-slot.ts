import type { Decider } from '../shared/decider.js';
import { warningSlotEventSchemas, type WarningSlotEvent } from './events.js';

// spec 4.11.3: at most one `warning` a day per automation. The slot of (automation, UTC day) is
// claimed once (a racing claim conflicts and reads the winner); the run it names warns. A run that
// crashed after claiming and is recorded again finds itself named and still warns.

export interface WarningSlotState {
  run_id: string | null;
}

export type ClaimWarning = { type: 'ClaimWarning'; automation_id: string; day: string; run_id: string; at: string };

export const warningSlotId = (automation_id: string, day: string): string => `${automation_id}.${day}`;

export const warningSlotDecider: Decider<ClaimWarning, WarningSlotState, WarningSlotEvent> = {
  aggregate: 'automation_warning',
  schemas: warningSlotEventSchemas,
  initialState: () => ({ run_id: null }),
  evolve: (_state, event) => ({ run_id: event.data.run_id }),
  decide: ({ type: _, ...data }, state) => (state.run_id === null ? [{ type: 'AutomationWarningClaimed', data }] : []),
};
