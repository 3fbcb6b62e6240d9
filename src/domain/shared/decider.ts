import { z } from 'zod';

// The decider pattern: state is a left fold of events; decide is a pure function of
// (command, state) that returns the new events or throws a DomainError.

export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/** The events a map of schemas describes: `{ type, data }` for each type. */
export type EventUnion<Schemas extends Record<string, z.ZodType>> = {
  [Type in keyof Schemas & string]: { type: Type; data: z.infer<Schemas[Type]> };
}[keyof Schemas & string];

/** The zod schema of each event type's data: what events read back from the store are checked against. */
export type EventSchemas<Event extends DomainEvent> = {
  readonly [Type in Event['type']]: z.ZodType<Extract<Event, { type: Type }>['data']>;
};

export interface Decider<Command, State, Event extends DomainEvent> {
  /** stream name prefix: streams are `<aggregate>-<id>` */
  aggregate: string;
  /** the events its streams hold */
  schemas: EventSchemas<Event>;
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
}

/** What a stored event carries that parsing needs (the event store's recorded event has it). */
export interface StoredEvent {
  streamId: string;
  revision: bigint;
  type: string;
  data: unknown;
}

/**
 * The one place where an event read back from the store becomes a typed event: its data must
 * fit its type's schema, or reading fails naming the stream, revision and type. The data is
 * returned as recorded, not as zod's stripped copy, so a reader never drops what was written.
 */
export function parseEvent<Event extends DomainEvent>(schemas: EventSchemas<Event>, stored: StoredEvent): Event {
  const at = `event ${stored.revision} of stream ${stored.streamId}`;
  if (!Object.hasOwn(schemas, stored.type))
    throw new Error(`${at} has type ${stored.type}, which is none of ${Object.keys(schemas).join(', ')}`);
  const checked = schemas[stored.type as Event['type']].safeParse(stored.data);
  if (!checked.success)
    throw new Error(`${at} (${stored.type}) does not fit its schema:\n${z.prettifyError(checked.error)}`);
  return { type: stored.type, data: stored.data } as Event;
}
