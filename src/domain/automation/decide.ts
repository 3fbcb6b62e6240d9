import { isDeepStrictEqual } from 'node:util';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { checkAutomationCode } from './code-check.js';
import { compact, type CompactAutomation } from './compaction.js';
import { automationEventSchemas, type AutomationEvent, type OperationDependencies } from './events.js';
import { evolve, initialState, type AutomationState } from './state.js';

type Who = { automation_id: string; by: string; at: string };
export type AutomationCommand =
  | (Who & {
      type: 'CreateAutomation';
      account_id: string;
      stream_type: string;
      title: string;
      code: string;
      operation_dependencies: OperationDependencies;
      source_automation_id: string | null;
    })
  | (Who & { type: 'EditAutomation'; code?: string; title?: string; operation_dependencies?: OperationDependencies })
  | (Who & { type: 'ActivateAutomation' })
  /** `replaced_by`: the automation that went live in its place; null: its user stopped it */
  | (Who & { type: 'DeactivateAutomation'; replaced_by: string | null })
  | (Who & { type: 'ArchiveAutomation' })
  | CompactAutomation;

/** An automation that exists and is not archived: what every change but archiving needs. */
function editable(state: AutomationState, c: Who): void {
  if (state.status === null)
    throw new DomainError('automation_not_found', `automation_id: no automation '${c.automation_id}' on your accounts`);
  if (state.status === 'archived')
    throw new DomainError(
      'invalid',
      `automation_id: automation '${c.automation_id}' is archived; an archived automation keeps its history but can't be changed or activated`,
      { argument: 'automation_id' },
    );
}

/** spec 3.1, one automation's rows; "one live per event type" is the live slot's (live-slot.ts). */
export function decide(command: AutomationCommand, state: AutomationState): AutomationEvent[] {
  if (command.type === 'CompactAutomation') return compact(command, state);
  const { by, at } = command;
  switch (command.type) {
    case 'CreateAutomation': {
      if (state.status !== null)
        throw new DomainError('conflict', `automation '${command.automation_id}' already exists`);
      checkAutomationCode(command.code);
      const { type: _, ...data } = command;
      return [{ type: 'AutomationCreated', data }];
    }
    case 'EditAutomation': {
      editable(state, command);
      const events: AutomationEvent[] = [];
      if (command.code !== undefined && command.code !== state.code) {
        checkAutomationCode(command.code);
        events.push({ type: 'AutomationCodeSaved', data: { version: state.version + 1, code: command.code, by, at } });
      }
      if (command.title !== undefined && command.title !== state.title)
        events.push({ type: 'AutomationRetitled', data: { title: command.title, by, at } });
      const deps = command.operation_dependencies;
      if (deps !== undefined && !isDeepStrictEqual(deps, state.operation_dependencies))
        events.push({ type: 'AutomationDependenciesSet', data: { operation_dependencies: deps, by, at } });
      return events;
    }
    case 'ActivateAutomation':
      editable(state, command);
      return state.status === 'live' ? [] : [{ type: 'AutomationActivated', data: { by, at } }];
    case 'DeactivateAutomation': {
      const reason = command.replaced_by === null ? 'stopped' : 'replaced';
      if (reason === 'stopped') editable(state, command);
      return state.status === 'live'
        ? [{ type: 'AutomationDeactivated', data: { reason, replaced_by: command.replaced_by, by, at } }]
        : [];
    }
    case 'ArchiveAutomation':
      if (state.status === null)
        throw new DomainError(
          'automation_not_found',
          `automation_id: no automation '${command.automation_id}' on your accounts`,
        );
      if (state.status === 'archived') return [];
      return [
        ...(state.status === 'live'
          ? [
              {
                type: 'AutomationDeactivated' as const,
                data: { reason: 'archived' as const, replaced_by: null, by, at },
              },
            ]
          : []),
        { type: 'AutomationArchived', data: { by, at } },
      ];
  }
}

export const automationDecider: Decider<AutomationCommand, AutomationState, AutomationEvent> = {
  aggregate: 'automation',
  schemas: automationEventSchemas,
  initialState,
  evolve,
  decide,
};
