import { mutationDecider, type MutationCommand } from '../domain/mutation/decide.js';
import type { MutationEvent, MutationEventOf } from '../domain/mutation/events.js';
import type { ReceiptState } from '../domain/mutation/state.js';
import type { EventStore } from '../eventstore/port.js';
import { aggregateStream, handleCommand, type CommandContext, type CommandResult } from './handler.js';

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

export interface Receipt {
  /** what the receipt was admitted as: its first event */
  admitted: MutationEventOf<'MutationAdmitted'>['data'];
  state: ReceiptState;
  events: MutationEvent[];
}

/** A receipt from its own stream; null when its admission was never recorded. */
export async function readReceipt(store: EventStore, receipt_id: string): Promise<Receipt | null> {
  const { state, events } = await aggregateStream(store, mutationDecider, receipt_id);
  const first = events[0];
  return first?.type === 'MutationAdmitted' ? { admitted: first.data, state, events } : null;
}
