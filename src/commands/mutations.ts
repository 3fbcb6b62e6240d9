import { mutationDecider, type MutationCommand } from '../domain/mutation/decide.js';
import type { MutationEvent } from '../domain/mutation/events.js';
import { handleCommand, type CommandContext, type CommandResult } from './handler.js';

// Applies a receipt command to its stream (`mutation-<receipt id>`) with optimistic concurrency:
// two workers racing on one receipt (say, two dispatches) can't both win; the loser is decided
// again on the fresh state and refused by the state machine.
export async function executeMutationCommand(
  ctx: CommandContext,
  command: MutationCommand,
): Promise<CommandResult<MutationEvent>> {
  const metadata =
    command.type === 'AdmitMutation' ? { ...ctx.metadata, account_id: command.account_id } : ctx.metadata;
  return handleCommand(mutationDecider, command.receipt_id, command, { ...ctx, metadata });
}
