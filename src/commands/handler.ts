import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '../domain/shared/decider.js';
import {
  NO_STREAM,
  WrongExpectedVersion,
  type EventMetadata,
  type EventStore,
  type Position,
} from '../eventstore/port.js';

export interface CommandContext {
  store: EventStore;
  metadata: Omit<EventMetadata, 'at'>;
  /** attempts on a version conflict before giving up (the conflict is then rethrown) */
  maxAttempts?: number;
}

export interface CommandResult<Event> {
  events: Event[];
  /** revision of the stream's last event after the command, or null when the stream is still empty */
  revision: bigint | null;
  /** where the new events landed in the global log; null when the command recorded nothing */
  position: Position | null;
}

export const streamName = (aggregate: string, id: string): string => `${aggregate}-${id}`;

/**
 * Reads the aggregate's stream, folds it, decides, and appends with the expected
 * revision. A concurrent writer makes the append fail; the command is then decided
 * again on the fresh state, a bounded number of times.
 */
export async function handleCommand<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  id: string,
  command: Command,
  ctx: CommandContext,
): Promise<CommandResult<Event>> {
  const stream = streamName(decider.aggregate, id);
  const maxAttempts = ctx.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const recorded = await ctx.store.readStream(stream);
    let state = decider.initialState();
    for (const e of recorded) state = decider.evolve(state, { type: e.type, data: e.data } as Event);
    const revision = recorded.length ? recorded[recorded.length - 1]!.revision : null;
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, revision, position: null };
    const metadata: EventMetadata = { correlation_id: randomUUID(), ...ctx.metadata, at: new Date().toISOString() };
    try {
      const result = await ctx.store.appendToStream(
        stream,
        events.map((e) => ({ type: e.type, data: e.data, metadata })),
        { expectedRevision: revision ?? NO_STREAM },
      );
      return { events, revision: result.nextExpectedRevision, position: result.position };
    } catch (err) {
      if (!(err instanceof WrongExpectedVersion) || attempt >= maxAttempts) throw err;
    }
  }
}
