import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import {
  automationRunEventSchemas,
  type ActionStatus,
  type AutomationAction,
  type AutomationRunEvent,
  type RunIdentity,
  NO_ACTION_FIELDS,
} from './events.js';
import { evolve, initialState, type AutomationRunState } from './state.js';

// spec 3.3 for one live run. A run's decisions are recorded once, when it has run: each change it
// pushed as a `mutation` action (a new decision is `queued`, `applied`, `failed` or `blocked`),
// and a `warning` when it changed nothing and read a missing top-level event key (spec 4.11.3; at
// most one a day per automation: the warning slot, warning-slot.ts, says whether this run may).
// Later, a `queued` action becomes `applied` or `failed`, or stays queued (throttling, server
// errors: nothing is recorded). Recording the same run again records nothing.

/** One pushed change as the outbox answered it. */
export interface MutationOutcome {
  status: ActionStatus;
  error_message?: string | null;
  receipt_id?: string | null;
  /** major units */
  value?: number | null;
  action?: string | null;
  /** the target the run pushed, with its listing's fields when the context gave them */
  target?: {
    type?: string | null;
    id?: string | null;
    asin?: string | null;
    sku?: string | null;
    marketplace_id?: string | null;
    title?: string | null;
  } | null;
}

/** What a finished run reports: what it decided and what of it took effect. */
export interface RunReport {
  /** the run failed: threw, timed out, ran out of memory, or its store writes were refused */
  error_message: string | null;
  /** paths of event keys the run read that the payload lacked (the sandbox's missing-field reads) */
  missing_fields: readonly string[];
  /** each change it pushed, in push order (none when the sandbox failed) */
  mutations: readonly MutationOutcome[];
  /** keys its applied store writes changed (0 when they were refused or the run failed) */
  store_changes: number;
  /** webhook posts handed to delivery */
  webhook_posts: number;
}

export type AutomationRunCommand =
  | (RunReport & {
      type: 'RecordAutomationRun';
      run_id: string;
      run: RunIdentity;
      at: string;
      /** the automation's warning slot for the run's day names this run */
      warning_slot: boolean;
    })
  | {
      type: 'SettleAutomationAction';
      run_id: string;
      index: number;
      /** `queued`: still waiting (throttling, server errors), nothing is recorded */
      status: 'queued' | 'applied' | 'failed';
      receipt_id?: string | null;
      error_message?: string | null;
      at: string;
    };

/** Messages and field lists are bounded: a run's own error text is the user's. */
export const MAX_MESSAGE_CHARS = 2_000;
export const MAX_MISSING_FIELDS = 100;
const bounded = (text: string | null | undefined): string | null =>
  text == null ? null : text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;

/** A read of the event's own top level (no `.` or `[` in its path): the probable shape mismatch. */
export const isTopLevel = (path: string): boolean => !/[.[]/.test(path);

/** spec 4.11.3: the run changed nothing (it pushed no change, and no store write or post of it took effect) and read a missing top-level key. */
export function warrantsWarning(r: RunReport): boolean {
  const changedNothing = r.mutations.length === 0 && r.store_changes === 0 && r.webhook_posts === 0;
  return changedNothing && r.missing_fields.some(isTopLevel);
}

const LISTING_TARGETS = new Set(['Listing', 'Ad']);
const invalid = (detail: string) => new DomainError('invalid', detail);

function mutationAction(m: MutationOutcome, index: number, run_id: string): AutomationAction {
  const at = `run ${run_id}, change ${index}`;
  if (m.status === 'applied' && !m.receipt_id) throw invalid(`${at}: an applied change names its receipt`);
  if (m.status === 'failed' && !m.error_message) throw invalid(`${at}: a failed change says why (error_message)`);
  if (m.value != null && !Number.isFinite(m.value)) throw invalid(`${at}: value ${m.value} is not a finite number`);
  const { type, id, asin, sku, marketplace_id, title } = m.target ?? {};
  const given = {
    value: m.value,
    action: m.action,
    target_type: type,
    target_id: id,
    receipt_id: m.receipt_id,
    // the listing's fields are shown for a Listing or Ad target only (spec 2.10)
    ...(LISTING_TARGETS.has(type ?? '') ? { asin, sku, marketplace_id, title } : {}),
  };
  const known = Object.fromEntries(Object.entries(given).filter(([, v]) => v != null)) as Partial<AutomationAction>;
  return {
    ...NO_ACTION_FIELDS,
    ...known,
    index,
    kind: 'mutation',
    status: m.status,
    error_message: bounded(m.error_message),
  };
}

const warningAction = (index: number, error_message: string | null, missing_fields: string[]): AutomationAction => ({
  ...NO_ACTION_FIELDS,
  index,
  kind: 'warning',
  status: null,
  error_message,
  missing_fields,
});

export function decide(command: AutomationRunCommand, state: AutomationRunState): AutomationRunEvent[] {
  switch (command.type) {
    case 'RecordAutomationRun': {
      if (state.recorded) return [];
      const { run_id, run, at } = command;
      const error_message = bounded(command.error_message);
      const missing_fields = [...new Set(command.missing_fields)].slice(0, MAX_MISSING_FIELDS);
      const actions = command.mutations.map((m, i) => mutationAction(m, i, run_id));
      if (command.warning_slot && warrantsWarning(command))
        actions.push(warningAction(actions.length, error_message, missing_fields));
      return [
        {
          type: 'AutomationRunRecorded',
          data: {
            run_id,
            run,
            at,
            error_message,
            missing_fields,
            store_changes: command.store_changes,
            webhook_posts: command.webhook_posts,
            actions,
          },
        },
      ];
    }
    case 'SettleAutomationAction': {
      const { run_id, index, status } = command;
      const action = state.actions[index];
      if (!state.recorded || !action)
        throw invalid(`run ${run_id} has no action ${index}${state.recorded ? '' : ' (the run is not recorded)'}`);
      if (action.kind !== 'mutation' || action.status !== 'queued')
        throw invalid(
          `run ${run_id}, action ${index}: only a queued mutation action is settled; this one is ${action.kind === 'warning' ? 'a warning' : action.status}`,
        );
      if (status === 'queued') return [];
      if (status === 'failed' && !command.error_message)
        throw invalid(`run ${run_id}, action ${index}: a failed change says why (error_message)`);
      return [
        {
          type: 'AutomationActionSettled',
          data: {
            index,
            status,
            receipt_id: command.receipt_id ?? null,
            error_message: bounded(command.error_message),
            at: command.at,
          },
        },
      ];
    }
  }
}

export const automationRunDecider: Decider<AutomationRunCommand, AutomationRunState, AutomationRunEvent> = {
  aggregate: 'automation_run',
  schemas: automationRunEventSchemas,
  initialState,
  evolve,
  decide,
};
