import { pauseDecider } from '../../domain/automation/pause.js';
import type { Position } from '../../eventstore/port.js';
import { aggregateStream, handleCommand, type CommandContext } from '../shared/handler.js';

/** Pauses (or resumes) every automation of the account; null when it already was so. */
export async function setAutomationsPaused(
  ctx: CommandContext,
  input: { account_id: string; paused: boolean; by: string; at: Date },
): Promise<Position | null> {
  const { account_id, by } = input;
  const command = {
    type: input.paused ? ('PauseAutomations' as const) : ('ResumeAutomations' as const),
    account_id,
    by,
    at: input.at.toISOString(),
  };
  const metadata = { ...ctx.metadata, account_id };
  return (await handleCommand(pauseDecider, account_id, command, { ...ctx, metadata })).position;
}

/** Whether the account's automations are paused, as its stream has it now. */
export async function automationsPaused(ctx: Pick<CommandContext, 'store'>, account_id: string): Promise<boolean> {
  return (await aggregateStream(ctx.store, pauseDecider, account_id)).state.paused;
}
