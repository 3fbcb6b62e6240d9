import type { Decider } from '../shared/decider.js';
import { switchEventSchemas, type SwitchEvent } from './events.js';

// The operator's switch over new provider write requests (spec 7 `admissions_disabled`): one
// stream, `admissions-switch`. Receipts already queued are not touched: the dispatcher never
// reads the switch. Disabling when disabled (or enabling when enabled) records nothing.

export type SwitchCommand =
  | { type: 'DisableAdmissions'; reason: string | null; by: string; at: string }
  | { type: 'EnableAdmissions'; by: string; at: string };

export interface SwitchState {
  /** whether new admissions are paused: the switch's latest event */
  disabled: boolean;
}

/** The switch's one stream is `admissions-switch`. */
export const SWITCH_ID = 'switch';

export const switchDecider: Decider<SwitchCommand, SwitchState, SwitchEvent> = {
  aggregate: 'admissions',
  schemas: switchEventSchemas,
  initialState: () => ({ disabled: false }),
  evolve: (_state, event) => ({ disabled: event.type === 'AdmissionsDisabled' }),
  decide(command, { disabled }) {
    if (command.type === 'DisableAdmissions')
      return disabled
        ? []
        : [{ type: 'AdmissionsDisabled', data: { reason: command.reason, by: command.by, at: command.at } }];
    return disabled ? [{ type: 'AdmissionsEnabled', data: { by: command.by, at: command.at } }] : [];
  },
};
