import type { AutomationEvent, CodeVersion, OperationDependencies } from './events.js';

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
  /** the code versions the stream still holds, oldest first (retention prunes the expired ones) */
  versions: CodeVersion[];
  /** how it began: kept by a compaction, which drops the creation event */
  origin: { source_automation_id: string | null; created_at: string; created_by: string } | null;
}

export const initialState = (): AutomationState => ({
  status: null,
  account_id: null,
  stream_type: null,
  title: '',
  code: '',
  version: 0,
  operation_dependencies: {},
  versions: [],
  origin: null,
});

export function evolve(state: AutomationState, event: AutomationEvent): AutomationState {
  switch (event.type) {
    case 'AutomationCreated': {
      const { account_id, stream_type, title, code, operation_dependencies, source_automation_id, by, at } = event.data;
      return {
        status: 'draft',
        account_id,
        stream_type,
        title,
        code,
        version: 1,
        operation_dependencies,
        versions: [{ version: 1, code, by, at }],
        origin: { source_automation_id, created_at: at, created_by: by },
      };
    }
    case 'AutomationCodeSaved':
      return {
        ...state,
        code: event.data.code,
        version: event.data.version,
        versions: [...state.versions, event.data],
      };
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
    case 'AutomationCompacted': {
      const d = event.data;
      return {
        status: d.status,
        account_id: d.account_id,
        stream_type: d.stream_type,
        title: d.title,
        code: d.code,
        version: d.version,
        operation_dependencies: d.operation_dependencies,
        versions: d.versions,
        origin: { source_automation_id: d.source_automation_id, created_at: d.created_at, created_by: d.created_by },
      };
    }
  }
}
