import type { AutomationEvent, OperationDependencies } from './events.js';

/** spec 3.1: draft (inactive), live, archived; null before creation. */
export type AutomationStatus = 'draft' | 'live' | 'archived';

export interface AutomationState {
  status: AutomationStatus | null;
  account_id: string | null;
  stream_type: string | null;
  title: string;
  code: string;
  version: number;
  operation_dependencies: OperationDependencies;
}

export const initialState = (): AutomationState => ({
  status: null,
  account_id: null,
  stream_type: null,
  title: '',
  code: '',
  version: 0,
  operation_dependencies: {},
});

export function evolve(state: AutomationState, event: AutomationEvent): AutomationState {
  switch (event.type) {
    case 'AutomationCreated': {
      const { account_id, stream_type, title, code, operation_dependencies } = event.data;
      return { status: 'draft', account_id, stream_type, title, code, version: 1, operation_dependencies };
    }
    case 'AutomationCodeSaved':
      return { ...state, code: event.data.code, version: event.data.version };
    case 'AutomationRetitled':
      return { ...state, title: event.data.title };
    case 'AutomationDependenciesSet':
      return { ...state, operation_dependencies: event.data.operation_dependencies };
    case 'AutomationActivated':
      return { ...state, status: 'live' };
    case 'AutomationDeactivated':
      return { ...state, status: 'draft' };
    case 'AutomationArchived':
      return { ...state, status: 'archived' };
  }
}
