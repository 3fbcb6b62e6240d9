import type { ActionStatus, AutomationRunEvent } from './events.js';

export interface AutomationRunState {
  recorded: boolean;
  actions: { kind: 'mutation' | 'warning'; status: ActionStatus | null }[];
}

export const initialState = (): AutomationRunState => ({ recorded: false, actions: [] });

export function evolve(state: AutomationRunState, event: AutomationRunEvent): AutomationRunState {
  switch (event.type) {
    case 'AutomationRunRecorded':
      return { recorded: true, actions: event.data.actions.map(({ kind, status }) => ({ kind, status })) };
    case 'AutomationActionSettled':
      return {
        ...state,
        actions: state.actions.map((a, i) => (i === event.data.index ? { ...a, status: event.data.status } : a)),
      };
  }
}
