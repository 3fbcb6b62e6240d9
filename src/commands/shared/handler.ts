import { randomUUID } from 'node:crypto';
import { parseEvent, type Decider, type DomainEvent } from '../../domain/shared/decider.js';
import {
  NO_STREAM,
  WrongExpectedVersion,
  type CreateStreamsOptions,
  type EventMetadata,
  type ExpectedRevision,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../../eventstore/port.js';

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

export interface Aggregate<State, Event> {
  state: State;
  /** revision of the stream's last event, or null when the stream is empty */
  revision: bigint | null;
  events: Event[];
}

export const streamName = (aggregate: string, id: string): string => `${aggregate}-${id}`;

/** Reads the aggregate's stream, each event parsed by the decider's schemas, and folds it. */
export async function aggregateStream<Command, State, Event extends DomainEvent>(
  store: EventStore,
  decider: Decider<Command, State, Event>,
  id: string,
): Promise<Aggregate<State, Event>> {
  return folded(decider, await store.readStream(streamName(decider.aggregate, id)));
}

/** An aggregate's stream as read (readStream, readStreams), each event parsed by the decider's schemas, folded. */
export function folded<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  recorded: readonly RecordedEvent[],
): Aggregate<State, Event> {
  const events = recorded.map((e) => parseEvent(decider.schemas, e));
  return {
    state: events.reduce(decider.evolve, decider.initialState()),
    revision: recorded.at(-1)?.revision ?? null,
    events,
  };
}

/** A stream no one has written yet, as a decider sees it: what to pass as `known` for a stream the caller just named. */
export const noStream = <Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
): Aggregate<State, Event> => ({ state: decider.initialState(), revision: null, events: [] });

/**
 * The aggregate after a command decided on `known`, folded on without reading the stream again;
 * undefined when other events came in between and the command, decided again on a fresh read,
 * recorded some. (Deciding nothing on a stale `known` returns it as it was: the command's result
 * says nothing of the stream.)
 */
export function advanced<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  known: Aggregate<State, Event>,
  result: CommandResult<Event>,
): Aggregate<State, Event> | undefined {
  const n = BigInt(result.events.length);
  const expected = known.revision === null ? (n === 0n ? null : n - 1n) : known.revision + n;
  if (result.revision !== expected) return undefined;
  return {
    state: result.events.reduce(decider.evolve, known.state),
    revision: result.revision,
    events: [...known.events, ...result.events],
  };
}

/** What a command's events carry: the context's metadata, a correlation id of their own unless it gives one, the time. */
const metadataOf = (ctx: CommandContext, at: string): EventMetadata => ({
  correlation_id: randomUUID(),
  ...ctx.metadata,
  at,
});

/** Appends decided events with one metadata for all of them. */
async function append<Event extends DomainEvent>(
  ctx: CommandContext,
  stream: string,
  events: Event[],
  expectedRevision: ExpectedRevision,
): Promise<CommandResult<Event>> {
  const metadata = metadataOf(ctx, new Date().toISOString());
  const result = await ctx.store.appendToStream(
    stream,
    events.map((e) => ({ type: e.type, data: e.data, metadata })),
    { expectedRevision },
  );
  return { events, revision: result.nextExpectedRevision, position: result.position };
}

/** Decides the command on the aggregate's state and appends what it records: see handleCommandWith. */
export async function handleCommand<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  id: string,
  command: Command,
  ctx: CommandContext,
  known?: Aggregate<State, Event>,
): Promise<CommandResult<Event>> {
  return handleCommandWith(decider, id, () => command, ctx, known);
}

/**
 * Reads the aggregate's stream, folds it, decides, and appends with the expected revision. A
 * concurrent writer makes the append fail; the command is then decided again on the fresh
 * state, a bounded number of times. `commandFor` builds the command for the state it is
 * decided on, when the decider needs facts that live elsewhere and depend on that state.
 * `known`: the aggregate as the caller has just read it, decided on first instead of reading
 * it again (stale, it fails the revision check like any concurrent write).
 */
export async function handleCommandWith<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  id: string,
  commandFor: (state: State) => Command | Promise<Command>,
  ctx: CommandContext,
  known?: Aggregate<State, Event>,
): Promise<CommandResult<Event>> {
  const stream = streamName(decider.aggregate, id);
  const maxAttempts = ctx.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = attempt === 1 && known ? known : await aggregateStream(ctx.store, decider, id);
    const events = decider.decide(await commandFor(state), state);
    if (events.length === 0) return { events, revision, position: null };
    try {
      return await append(ctx, stream, events, revision ?? NO_STREAM);
    } catch (err) {
      if (!(err instanceof WrongExpectedVersion) || attempt >= maxAttempts) throw err;
    }
  }
}

/**
 * handleCommand for commands on several streams of one decider, each decided on the aggregate its
 * caller knows, recorded in one write (appendToStreams: PostgreSQL, one statement). A command whose
 * stream moved on since (or, where the store writes them together, any other's: then none was
 * written) is decided again on a fresh read, as handleCommand does; one without `known` is
 * handleCommand's alone. Per command, in order, its result.
 */
export async function handleCommands<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  commands: ReadonlyArray<{ id: string; command: Command; known?: Aggregate<State, Event> | undefined }>,
  ctx: CommandContext,
): Promise<Array<CommandResult<Event>>> {
  const decided = commands.map(({ known, command }) => known && decider.decide(command, known.state));
  const writes = commands.flatMap(({ id, known }, i) =>
    known && decided[i]!.length > 0 ? [{ i, stream: streamName(decider.aggregate, id), revision: known.revision }] : [],
  );
  const at = new Date().toISOString();
  const written = await ctx.store.appendToStreams(
    writes.map(({ i, stream, revision }) => {
      // each command its own correlation id, as handleCommand gives it
      const metadata = metadataOf(ctx, at);
      return {
        stream,
        events: decided[i]!.map((e) => ({ type: e.type, data: e.data, metadata })),
        expectedRevision: revision ?? NO_STREAM,
      };
    }),
  );
  const landed = new Map(writes.map(({ i }, w) => [i, written[w]]));
  const results: Array<CommandResult<Event>> = [];
  for (const [i, { id, command, known }] of commands.entries()) {
    const events = decided[i];
    const result = landed.get(i);
    results.push(
      known && events!.length === 0
        ? { events: events!, revision: known.revision, position: null }
        : result
          ? { events: events!, revision: result.nextExpectedRevision, position: result.position }
          : await handleCommand(decider, id, command, ctx),
    );
  }
  return results;
}

/**
 * For streams that are only ever created (one per provider message): decides on the initial
 * state and appends with NO_STREAM, without reading first. A stream already there means the
 * command was recorded before: nothing is appended and the result says so (`existed`).
 */
export async function handleCreation<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  id: string,
  command: Command,
  ctx: CommandContext,
): Promise<CommandResult<Event> & { existed: boolean }> {
  const events = decider.decide(command, decider.initialState());
  if (events.length === 0) return { events, revision: null, position: null, existed: false };
  try {
    return { ...(await append(ctx, streamName(decider.aggregate, id), events, NO_STREAM)), existed: false };
  } catch (err) {
    if (err instanceof WrongExpectedVersion) return { events: [], revision: null, position: null, existed: true };
    throw err;
  }
}

/** A stream to create: its name and the one event its command decided on the initial state. */
export interface Creation<Event extends DomainEvent = DomainEvent> {
  stream: string;
  event: Event;
  /** what its event's metadata says beyond the context's (a receipt's own account) */
  metadata?: Omit<EventMetadata, 'at'>;
}

/** Decides `command` on the decider's initial state, where it must record exactly one event: the stream's creation. */
export function decideCreation<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  id: string,
  command: Command,
): Creation<Event> {
  const events = decider.decide(command, decider.initialState());
  if (events.length !== 1)
    throw new Error(`a creation records one event; ${decider.aggregate} decided ${events.length}`);
  return { stream: streamName(decider.aggregate, id), event: events[0]! };
}

/**
 * Creates the streams in one write (PostgreSQL: one statement, one commit), in list order, with
 * one metadata for all, each creation's own added. Per stream, in order: where its event landed,
 * or null when the stream was there already (or came earlier in the list). `exclusive`: see
 * EventStore.createStreams.
 */
export async function createStreams(
  ctx: CommandContext,
  creations: readonly Creation[],
  options: CreateStreamsOptions = {},
): Promise<Array<Position | null>> {
  const metadata = metadataOf(ctx, new Date().toISOString());
  return ctx.store.createStreams(
    creations.map(({ stream, event, metadata: own }) => ({
      stream,
      event: { type: event.type, data: event.data, metadata: { ...metadata, ...own } },
    })),
    options,
  );
}

/**
 * handleCreation for many streams in one write (ingestion's batches): each command is decided on
 * the initial state, where it must record exactly one event, and every stream is created with
 * NO_STREAM at once. Per command, in order: where its event landed, or `existed` when the stream
 * was there already (or came earlier in the list).
 */
export async function handleCreations<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  creations: ReadonlyArray<{ id: string; command: Command }>,
  ctx: CommandContext,
): Promise<Array<{ existed: boolean; position: Position | null }>> {
  const positions = await createStreams(
    ctx,
    creations.map(({ id, command }) => decideCreation(decider, id, command)),
  );
  return positions.map((position) => ({ existed: position === null, position }));
}
