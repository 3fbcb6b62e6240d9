import type { Decider } from '../shared/decider.js';
import { pauseEventSchemas, type PauseEvent } from './events.js';

// The seller's pause of every automation of one account (the console's Settings), one stream per
// account, `automation_pause-<account id>`. While paused the live reactor runs none of the
// account's automations; events recorded meanwhile are not run on resuming (as with an automation
// activated later, the past is not replayed). What is live stays live; dry runs and backtests are
// not affected. Pausing when paused (or resuming when running) records nothing.

export type PauseCommand =
  | { type: 'PauseAutomations'; account_id: string; by: string; at: string }
  | { type: 'ResumeAutomations'; account_id: string; by: string; at: string };

export interface PauseState {
  paused: boolean;
}

export const pauseDecider: Decider<PauseCommand, PauseState, PauseEvent> = {
  aggregate: 'automation_pause',
  schemas: pauseEventSchemas,
  initialState: () => ({ paused: false }),
  evolve: (_state, event) => ({ paused: event.type === 'AutomationsPaused' }),
  decide(command, { paused }) {
    const { account_id, by, at } = command;
    if (command.type === 'PauseAutomations')
      return paused ? [] : [{ type: 'AutomationsPaused', data: { account_id, by, at } }];
    return paused ? [{ type: 'AutomationsResumed', data: { account_id, by, at } }] : [];
  },
};
