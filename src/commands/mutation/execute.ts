import { mutationDecider, type MutationCommand } from '../../domain/mutation/decide.js';
import type { MutationEvent, MutationEventOf } from '../../domain/mutation/events.js';
import type { ReceiptState } from '../../domain/mutation/state.js';
import type { EventStore, Position, RecordedEvent } from '../../eventstore/port.js';
import { parseEvent } from '../../domain/shared/decider.js';
import {
  folded,
  handleCommand,
  handleCommands,
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

/**
 * Commands on several receipts recorded in one write (handleCommands), each decided on the receipt
 * as its caller knows it; no admission among them.
 */
export function executeMutationCommands(
  ctx: CommandContext,
  commands: ReadonlyArray<{
    command: Exclude<MutationCommand, { type: 'AdmitMutation' }>;
    known?: ReceiptStream | undefined;
  }>,
): Promise<Array<CommandResult<MutationEvent>>> {
  return handleCommands(
    mutationDecider,
    commands.map(({ command, known }) => ({ id: command.receipt_id, command, known })),
    ctx,
  );
}

/** A receipt's stream as a command handler folds it. */
export type ReceiptStream = Aggregate<ReceiptState, MutationEvent>;

export interface Receipt extends ReceiptStream {
  /** what the receipt was admitted as: its first event */
  admitted: MutationEventOf<'MutationAdmitted'>['data'];
}

/** The name of a receipt's stream. */
export const receiptStream = (receipt_id: string): string => streamName(mutationDecider.aggregate, receipt_id);

/** A receipt from its own stream; null when its admission was never recorded. */
export async function readReceipt(store: EventStore, receipt_id: string): Promise<Receipt | null> {
  return receiptFrom(await store.readStream(receiptStream(receipt_id)));
}

/** A receipt from its stream as read (readStream, readStreams); null when its admission was never recorded. */
export function receiptFrom(recorded: readonly RecordedEvent[]): Receipt | null {
  const aggregate = folded(mutationDecider, recorded);
  const first = aggregate.events[0];
  return first?.type === 'MutationAdmitted' ? { ...aggregate, admitted: first.data } : null;
}

/** Where a receipt's admission stands in the log, and whose account it is; null when never admitted. */
export async function receiptAdmission(
  store: EventStore,
  receipt_id: string,
): Promise<{ account_id: string; position: Position } | null> {
  const [first] = await store.readStream(receiptStream(receipt_id), { maxCount: 1 });
  if (!first) return null;
  const event = parseEvent<MutationEvent>(mutationDecider.schemas, first);
  return event.type === 'MutationAdmitted' ? { account_id: event.data.account_id, position: first.position } : null;
}
