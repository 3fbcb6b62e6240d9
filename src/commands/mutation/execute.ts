import { mutationDecider, type MutationCommand } from '../../domain/mutation/decide.js';
import type { MutationEvent, MutationEventOf } from '../../domain/mutation/events.js';
import type { ReceiptState } from '../../domain/mutation/state.js';
import type { EventStore, Position } from '../../eventstore/port.js';
import { parseEvent } from '../../domain/shared/decider.js';
import {
  aggregateStream,
  handleCommand,
  streamName,
  type Aggregate,
  type CommandContext,
  type CommandResult,
} from '../shared/handler.js';

// Applies a receipt command to its stream (`mutation-<receipt id>`) with optimistic concurrency:
// two workers racing on one receipt (say, two dispatches) can't both win; the loser is decided
// again on the fresh state and refused by the state machine. `known`: the receipt as the caller
// just read or wrote it (see handleCommand).
export async function executeMutationCommand(
  ctx: CommandContext,
  command: MutationCommand,
  known?: ReceiptStream,
): Promise<CommandResult<MutationEvent>> {
  const metadata =
    command.type === 'AdmitMutation' ? { ...ctx.metadata, account_id: command.account_id } : ctx.metadata;
  return handleCommand(mutationDecider, command.receipt_id, command, { ...ctx, metadata }, known);
}

/** A receipt's stream as a command handler folds it. */
export type ReceiptStream = Aggregate<ReceiptState, MutationEvent>;

export interface Receipt extends ReceiptStream {
  /** what the receipt was admitted as: its first event */
  admitted: MutationEventOf<'MutationAdmitted'>['data'];
}

/** A receipt from its own stream; null when its admission was never recorded. */
export async function readReceipt(store: EventStore, receipt_id: string): Promise<Receipt | null> {
  const aggregate = await aggregateStream(store, mutationDecider, receipt_id);
  const first = aggregate.events[0];
  return first?.type === 'MutationAdmitted' ? { ...aggregate, admitted: first.data } : null;
}

/** Where a receipt's admission stands in the log, and whose account it is; null when never admitted. */
export async function receiptAdmission(
  store: EventStore,
  receipt_id: string,
): Promise<{ account_id: string; position: Position } | null> {
  const [first] = await store.readStream(streamName(mutationDecider.aggregate, receipt_id), { maxCount: 1 });
  if (!first) return null;
  const event = parseEvent<MutationEvent>(mutationDecider.schemas, first);
  return event.type === 'MutationAdmitted' ? { account_id: event.data.account_id, position: first.position } : null;
}
