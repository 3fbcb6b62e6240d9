import type { PauseEvent } from '../../src/domain/automation/events.js';
import { pauseDecider, type PauseCommand } from '../../src/domain/automation/pause.js';
import { given } from '../support/gwt.js';

// The seller's pause of an account's automations: every state x every command; only a change is
// recorded.

const account_id = '0b7d8a52-3f1e-4c55-9d59-0d2c4c3d1a10';
const who = { account_id, by: 'seller', at: '2026-12-03T03:30:00.000Z' };
const paused: PauseEvent = { type: 'AutomationsPaused', data: who };
const resumed: PauseEvent = { type: 'AutomationsResumed', data: who };
const pause: PauseCommand = { type: 'PauseAutomations', ...who };
const resume: PauseCommand = { type: 'ResumeAutomations', ...who };

describe('automation pause decider: every state x every command', () => {
  const cases: Array<[string, PauseEvent[], PauseCommand, PauseEvent[]]> = [
    ['never paused', [], pause, [paused]],
    ['never paused', [], resume, []],
    ['paused', [paused], pause, []],
    ['paused', [paused], resume, [resumed]],
    ['resumed', [paused, resumed], pause, [paused]],
    ['resumed', [paused, resumed], resume, []],
  ];
  for (const [state, history, command, recorded] of cases)
    it(`${state}: ${command.type} records ${recorded.map((e) => e.type).join(', ') || 'nothing'}`, () =>
      given(pauseDecider, history).when(command).then(recorded));
});
