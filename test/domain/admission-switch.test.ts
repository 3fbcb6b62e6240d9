import { expect } from 'chai';
import { switchEventSchemas, type SwitchEvent } from '../../src/domain/admission/events.js';
import { SWITCH_ID, switchDecider, type SwitchCommand } from '../../src/domain/admission/switch.js';
import { streamName } from '../../src/commands/shared/handler.js';
import { given } from '../support/gwt.js';

// The operator's switch over new admissions: every state x every command. Only a change is
// recorded, and the state is the latest event.

const at = '2026-11-20T10:00:00.000Z';
const off: SwitchEvent = { type: 'AdmissionsDisabled', data: { reason: 'incident', by: 'ops', at } };
const on: SwitchEvent = { type: 'AdmissionsEnabled', data: { by: 'ops', at } };

const STATES: Record<string, { disabled: boolean; history: SwitchEvent[] }> = {
  'never set (allowed)': { disabled: false, history: [] },
  disabled: { disabled: true, history: [off] },
  're-enabled': { disabled: false, history: [off, on] },
};
const COMMANDS: Record<SwitchCommand['type'], SwitchCommand> = {
  DisableAdmissions: { type: 'DisableAdmissions', reason: 'incident', by: 'ops', at },
  EnableAdmissions: { type: 'EnableAdmissions', by: 'ops', at },
};
const RECORDS: Record<string, Record<SwitchCommand['type'], SwitchEvent[]>> = {
  'never set (allowed)': { DisableAdmissions: [off], EnableAdmissions: [] },
  disabled: { DisableAdmissions: [], EnableAdmissions: [on] },
  're-enabled': { DisableAdmissions: [off], EnableAdmissions: [] },
};

describe('admissions switch decider: every state x every command', () => {
  for (const [name, { disabled, history }] of Object.entries(STATES)) {
    it(`the history of '${name}' folds to disabled: ${disabled}`, () =>
      expect(history.reduce(switchDecider.evolve, switchDecider.initialState())).to.deep.equal({ disabled }));
    for (const [type, command] of Object.entries(COMMANDS) as [SwitchCommand['type'], SwitchCommand][]) {
      const expected = RECORDS[name]![type];
      it(`${name} + ${type}: ${expected.length ? `records ${expected.map((e) => e.type).join(', ')}` : 'records nothing'}`, () =>
        given(switchDecider, history).when(command).then(expected));
    }
  }

  it('disabling without a reason records a null reason; the events fit their schemas', () => {
    given(switchDecider, [])
      .when({ type: 'DisableAdmissions', reason: null, by: 'ops', at })
      .then([{ type: 'AdmissionsDisabled', data: { reason: null, by: 'ops', at } }]);
    for (const e of [off, on]) expect(switchEventSchemas[e.type].safeParse(e.data).success, e.type).to.equal(true);
  });

  it("the stream keeps its name: 'admissions-switch'", () =>
    expect(streamName(switchDecider.aggregate, SWITCH_ID)).to.equal('admissions-switch'));
});
