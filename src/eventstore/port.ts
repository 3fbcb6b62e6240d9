// The event store port. Both adapters (PostgreSQL, EventStoreDB) implement it with the
// same revision semantics: a stream's first event is revision 0.

export const NO_STREAM = 'no_stream' as const;
export const STREAM_EXISTS = 'stream_exists' as const;
export const ANY = 'any' as const;

/** `NO_STREAM`, `STREAM_EXISTS`, `ANY`, or the exact revision of the stream's last event. */
export type ExpectedRevision = typeof NO_STREAM | typeof STREAM_EXISTS | typeof ANY | bigint;

export interface EventMetadata {
  correlation_id?: string;
  causation_id?: string;
  actor?: { kind: 'user' | 'automation' | 'worker' | 'system'; id: string };
  account_id?: string;
  at?: string;
  [key: string]: unknown;
}

export interface EventData<T = unknown> {
  /** uuid; generated when absent. */
  id?: string;
  type: string;
  data: T;
  metadata?: EventMetadata;
}

/**
 * A position in the global log. PostgreSQL: commit = transaction id (xid8),
 * prepare = global_position. EventStoreDB: its commit/prepare positions.
 * Both order lexicographically on (commit, prepare).
 */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export interface RecordedEvent<T = unknown> {
  id: string;
  streamId: string;
  revision: bigint;
  type: string;
  data: T;
  metadata: EventMetadata;
  position: Position;
  createdAt: Date;
}

export interface AppendResult {
  /** revision of the last event written: pass it as `expectedRevision` next time */
  nextExpectedRevision: bigint;
  position: Position;
}

export interface ReadStreamOptions {
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** exclusive; null or absent = from the start */
  after?: Position | null;
  limit: number;
}

export interface ReadTypesOptions extends ReadAllOptions {
  /** the event types wanted; others are passed over */
  types: readonly string[];
  /** of those, only the events this filter keeps (all when absent) */
  filter?: DataFilter;
  /**
   * Stops, short of `limit`, after the event whose stored data (as the store keeps it, compressed
   * or not) brings the read's total to this many bytes; at least one event. Bounds the memory of
   * a read of large events (observed pages). Stores that can't tell sizes may ignore it.
   */
  maxBytes?: number;
}

/**
 * Keeps an event whose data has no string `field`, or has one of `values` there; passes over the
 * rest. A reader that wants a few of the many large events of one type (observed pages of one
 * dataset) names them so, and the store can pass over the others without loading them. With
 * `types`, it looks only at events of those types and keeps every other (one read for readers
 * that filter some types and want all of others).
 */
export interface DataFilter {
  field: string;
  values: readonly string[];
  /** the event types it applies to (absent: every type) */
  types?: readonly string[];
}

/** Whether the filter looks at events of this type at all. */
export const filters = (filter: DataFilter | undefined, type: string): filter is DataFilter =>
  filter !== undefined && (!filter.types || filter.types.includes(type));

/** Whether the filter keeps an event whose data holds `value` at its field (a filter absent keeps everything). */
export const keepsValue = (filter: DataFilter | undefined, value: unknown): boolean =>
  !filter || typeof value !== 'string' || filter.values.includes(value);

/** Whether the filter keeps this event. */
export const keeps = (filter: DataFilter | undefined, event: Pick<RecordedEvent, 'type' | 'data'>): boolean =>
  !filters(filter, event.type) ||
  keepsValue(
    filter,
    event.data !== null && typeof event.data === 'object'
      ? (event.data as Record<string, unknown>)[filter.field]
      : undefined,
  );

export interface TypedRead {
  /** the wanted events, in global order (at most `limit`, and `maxBytes` where given) */
  events: RecordedEvent[];
  /** how far the read looked: every wanted event up to here is in `events` (null: nothing yet) */
  through: Position | null;
  /** how many events of the log, wanted or not, the read went past up to `through` */
  passed: number;
  /** the read looked at every event readable now: reading on finds nothing until more commit */
  end: boolean;
}

export interface AppendOptions {
  /** What the stream's last revision must be for the append to go through (default ANY). */
  expectedRevision?: ExpectedRevision;
}

/** One stream's part of `appendToStreams`. */
export interface StreamAppend extends AppendOptions {
  stream: string;
  events: EventData[];
}

export interface NewStream {
  stream: string;
  /** the stream's one event */
  event: EventData;
}

export interface CreateStreamsOptions {
  /** a stream that exists leaves it and every stream after it unwritten (see EventStore.createStreams) */
  exclusive?: boolean;
}

export interface SubscribeOptions {
  after?: Position | null;
  types?: readonly string[];
}

export interface Subscription extends AsyncIterable<RecordedEvent> {
  unsubscribe(): Promise<void>;
}

export interface EventStore {
  /** createStreams writes all its streams or none in one write (PostgreSQL), not one after another (EventStoreDB) */
  readonly atomicCreation: boolean;
  appendToStream(stream: string, events: EventData[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Creates each stream with its one event (NO_STREAM for each), in one write where the store can
   * (PostgreSQL: one statement, positions in list order), else one after another in list order
   * (EventStoreDB): a stream is never written before the streams ahead of it in the list. Streams
   * that exist already, or twice in the list, are left as they are. Returns per stream, in order,
   * where its event landed, or null when it was not created.
   *
   * `exclusive`: a stream that exists (or repeats) leaves it and every stream after it unwritten
   * (PostgreSQL: the write fails whole, every position null; EventStoreDB stops there). A caller
   * that puts first the stream only one writer may create (an idempotency key) writes the rest
   * only when that one is its own.
   */
  createStreams(streams: readonly NewStream[], options?: CreateStreamsOptions): Promise<Array<Position | null>>;
  /**
   * Appends to several streams, each with its own expected revision, in one write where the store
   * can (PostgreSQL: one statement, all or none), else one after another in list order
   * (EventStoreDB). Per append, in order: where it landed, or null when it was not written: its
   * expectation failed or (PostgreSQL) another's did, which leaves every one unwritten. A stream
   * may appear once.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<Array<AppendResult | null>>;
  /** A missing stream reads as an empty array. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Each stream whole, in the order given (PostgreSQL: one statement; EventStoreDB: a read each). */
  readStreams(streams: readonly string[]): Promise<RecordedEvent[][]>;
  /**
   * Deletes the stream and its events (retention): it then reads as missing. A missing stream is
   * no error. PostgreSQL removes the rows at once; EventStoreDB soft-deletes (its scavenge frees them).
   */
  deleteStream(stream: string): Promise<void>;
  /**
   * Removes the stream's events before `beforeRevision` (retention of what a later event in the
   * same stream summarizes): reads start there, revisions and appends go on unchanged. A missing
   * stream is no error. PostgreSQL removes the rows at once; EventStoreDB sets the stream's
   * `truncateBefore` (its scavenge frees them).
   */
  truncateStream(stream: string, beforeRevision: bigint): Promise<void>;
  /** Committed events only, in global order, after `after` (exclusive). */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Like `readAll`, but only events of these types (and `filter`), and how far it looked: a reader
   * that wants a few types moves past the others without loading them.
   */
  readAllOfTypes(options: ReadTypesOptions): Promise<TypedRead>;
  /**
   * Position of the last committed event, visible to `readAll` yet or not (null for an empty
   * log): a reader that has passed it has seen everything committed before the call.
   */
  headPosition(): Promise<Position | null>;
  /**
   * Catch-up then live, from after `after` (exclusive); with `types`, only events of those types
   * (the others are passed over without being loaded).
   */
  subscribeToAll(options?: SubscribeOptions): Subscription;
  /**
   * Registers a wake-up hint called when new events may be available (PostgreSQL:
   * LISTEN/NOTIFY). A hint only: readers must still poll. With `types`, only for appends that
   * may hold one of them (a hint that doesn't say what it holds calls every listener), so a
   * reader of a few types sleeps through the others' appends. Returns an unregister function.
   */
  onAppended(listener: () => void, types?: readonly string[]): () => void;
  close(): Promise<void>;
}

export class WrongExpectedVersion extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** revision of the stream's last event, or NO_STREAM when it has none */
    readonly actual: bigint | typeof NO_STREAM,
  ) {
    super(`wrong expected version on ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedVersion';
  }
}

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}
