import type { AutomationEvent } from './events.js';
import type { AutomationState } from './state.js';

// Retention of code versions (spec 8: a year from the edit). The current version is the automation
// itself and stays as long as it does; an older one expires a year after the edit that made it.
// Versions are made in time order, so the expired ones are always the oldest.

export interface CompactAutomation {
  type: 'CompactAutomation';
  automation_id: string;
  /** versions edited before this instant, other than the current one, expire */
  expired_before: string;
  /** whether the event type's live slot names the automation (the slot is the authority) */
  live: boolean;
  at: string;
}

/** The versions of `state` that expired before `before`. */
export const expiredVersions = (state: AutomationState, before: string) =>
  state.versions.filter((v) => v.version !== state.version && Date.parse(v.at) < Date.parse(before));

/** Nothing when no version expired (or there is no automation); else the compaction that drops them. */
export function compact(command: CompactAutomation, state: AutomationState): AutomationEvent[] {
  if (state.status === null || state.account_id === null || state.stream_type === null || state.origin === null)
    return [];
  const expired = new Set(expiredVersions(state, command.expired_before).map((v) => v.version));
  if (expired.size === 0) return [];
  return [
    {
      type: 'AutomationCompacted',
      data: {
        account_id: state.account_id,
        stream_type: state.stream_type,
        title: state.title,
        code: state.code,
        version: state.version,
        operation_dependencies: state.operation_dependencies,
        ...state.origin,
        status: state.status,
        live: command.live,
        versions: state.versions.filter((v) => !expired.has(v.version)),
        expired_before: command.expired_before,
        at: command.at,
      },
    },
  ];
}
