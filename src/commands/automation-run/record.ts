import {
  automationRunDecider,
  warrantsWarning,
  type AutomationRunCommand,
  type RunReport,
} from '../../domain/automation-run/decide.js';
import { automationRunId, type AutomationAction, type RunIdentity } from '../../domain/automation-run/events.js';
import { warningSlotDecider, warningSlotId } from '../../domain/automation-run/warning-slot.js';
import {
  aggregateStream,
  handleCommand,
  handleCommandWith,
  handleCreation,
  type CommandContext,
} from '../shared/handler.js';

// The record of one live run (spec 2.10, 3.3), written by the runner after the run: what it
// decided, as automation actions. Recording the same run again records nothing, so a runner that
// crashed after recording and runs the event again leaves one record.

export interface RunRecordInput extends RunReport {
  run: RunIdentity;
  at: Date;
}

export interface RunRecorded {
  run_id: string;
  /** false when the run was recorded before */
  recorded: boolean;
  actions: AutomationAction[];
}

/**
 * Holds the automation's warning slot of the run's UTC day for this run when it is free, and
 * says whether the slot names this run (spec 4.11.3: one warning a day per automation).
 */
async function holdsWarningSlot(ctx: CommandContext, automation_id: string, run_id: string, at: string) {
  const day = at.slice(0, 10);
  let holder: string | null = null;
  const { events } = await handleCommandWith(
    warningSlotDecider,
    warningSlotId(automation_id, day),
    (state) => {
      holder = state.run_id;
      return { type: 'ClaimWarning' as const, automation_id, day, run_id, at };
    },
    ctx,
  );
  return events.length > 0 || holder === run_id;
}

export async function recordAutomationRun(ctx: CommandContext, input: RunRecordInput): Promise<RunRecorded> {
  const run_id = automationRunId(input.run);
  const at = input.at.toISOString();
  const { run: _, at: __, ...report } = input;
  let warning_slot = false;
  if (warrantsWarning(report)) {
    // a rerun of a recorded run must not take a later day's slot from the runs of that day
    const { state } = await aggregateStream(ctx.store, automationRunDecider, run_id);
    if (state.recorded) return { run_id, recorded: false, actions: [] };
    warning_slot = await holdsWarningSlot(ctx, input.run.automation_id, run_id, at);
  }
  const command: AutomationRunCommand = {
    type: 'RecordAutomationRun',
    run_id,
    run: input.run,
    at,
    warning_slot,
    ...report,
  };
  const metadata = { ...ctx.metadata, account_id: input.run.account_id };
  const { events, existed } = await handleCreation(automationRunDecider, run_id, command, { ...ctx, metadata });
  const actions = events[0]?.type === 'AutomationRunRecorded' ? events[0].data.actions : [];
  return { run_id, recorded: !existed, actions };
}

export interface ActionSettlement {
  run_id: string;
  index: number;
  /** `queued`: still waiting (throttling, server errors); nothing is recorded */
  status: 'queued' | 'applied' | 'failed';
  receipt_id?: string | null;
  error_message?: string | null;
  at: Date;
}

/** spec 3.3: a `queued` action's answer; anything but a queued mutation action is `invalid`. */
export async function settleAutomationAction(ctx: CommandContext, s: ActionSettlement): Promise<boolean> {
  const { events } = await handleCommand(
    automationRunDecider,
    s.run_id,
    { type: 'SettleAutomationAction', ...s, at: s.at.toISOString() },
    ctx,
  );
  return events.length > 0;
}
