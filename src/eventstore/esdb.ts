import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamSubscription,
  type JSONType,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import { callListeners, hintListener, type HintListener } from './hints.js';
import {
  NO_STREAM,
  WrongExpectedVersion,
  comparePositions,
  type AppendOptions,
  type AppendResult,
  type EventData,
  type EventMetadata,
  type EventStore,
  keeps,
  type CreateStreamsOptions,
  type NewStream,
  type Position,
  type SubscribeOptions,
  type ReadAllOptions,
  type ReadTypesOptions,
  type TypedRead,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type Subscription,
} from './port.js';

const RECONNECT_HINTS_MS = 1000;

function toRecorded(event: EsdbRecordedEvent): RecordedEvent {
  // Servers before 22.6 leave positions out of stream reads; we need them everywhere.
  if (!event.position)
    throw new Error(
      `EventStoreDB returned ${event.streamId}@${event.revision} without a position: use server 22.6 or later`,
    );
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    type: event.type,
    data: event.data,
    metadata: (event.metadata ?? {}) as EventMetadata,
    position: event.position,
    createdAt: event.created,
  };
}

const isUserEvent = (event: EsdbRecordedEvent) => !event.type.startsWith('$');

/**
 * The EventStoreDB adapter. Revisions and expected-revision constants are EventStoreDB's
 * own (the port copies them), so appends pass through and only the error is translated.
 */
export class EsdbEventStore implements EventStore {
  readonly atomicCreation = false;
  private readonly client: EventStoreDBClient;
  private readonly listeners = new Set<HintListener>();
  private hints: AllStreamSubscription | null = null;
  private closed = false;

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  async appendToStream(stream: string, events: EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    try {
      const result = await this.client.appendToStream(
        stream,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: e.metadata ?? {} })),
        { expectedRevision: expected },
      );
      if (!result.position) throw new Error(`EventStoreDB returned no position for the append to ${stream}`);
      return { nextExpectedRevision: result.nextExpectedRevision, position: result.position };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) throw new WrongExpectedVersion(stream, expected, err.actualVersion);
      throw err;
    }
  }

  // One append each, one after another in list order (no write across streams).
  async appendToStreams(appends: readonly StreamAppend[]): Promise<Array<AppendResult | null>> {
    if (new Set(appends.map((a) => a.stream)).size < appends.length)
      throw new Error('appendToStreams names a stream more than once');
    const results: Array<AppendResult | null> = [];
    for (const a of appends) {
      try {
        results.push(await this.appendToStream(a.stream, a.events, a));
      } catch (err) {
        if (!(err instanceof WrongExpectedVersion)) throw err;
        results.push(null);
      }
    }
    return results;
  }

  // EventStoreDB has no write across streams: one append each, one after another in list order,
  // so a stream is written only once every stream before it is (admission writes a key before
  // the receipts it names, and a target's receipts in their order).
  async createStreams(
    streams: readonly NewStream[],
    options: CreateStreamsOptions = {},
  ): Promise<Array<Position | null>> {
    const seen = new Set<string>();
    const positions: Array<Position | null> = [];
    let stopped = false;
    for (const s of streams) {
      if (stopped || seen.has(s.stream)) {
        positions.push(null);
        stopped ||= options.exclusive === true;
        continue;
      }
      seen.add(s.stream);
      try {
        positions.push((await this.appendToStream(s.stream, [s.event], { expectedRevision: NO_STREAM })).position);
      } catch (err) {
        if (!(err instanceof WrongExpectedVersion)) throw err;
        positions.push(null);
        stopped = options.exclusive === true;
      }
    }
    return positions;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(stream, {
        fromRevision: options.fromRevision ?? START,
        maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
      });
      for await (const resolved of read) if (resolved.event) out.push(toRecorded(resolved.event));
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  async readStreams(streams: readonly string[]): Promise<RecordedEvent[][]> {
    return Promise.all(streams.map((s) => this.readStream(s)));
  }

  async deleteStream(stream: string): Promise<void> {
    try {
      await this.client.deleteStream(stream);
    } catch (err) {
      if (!(err instanceof StreamNotFoundError)) throw err;
    }
  }

  async truncateStream(stream: string, beforeRevision: bigint): Promise<void> {
    await this.client.setStreamMetadata(stream, { truncateBefore: Number(beforeRevision) });
  }

  /**
   * `fromPosition` is inclusive and the client cannot filter `$all` reads, so each page asks
   * for one event more than still needed, skips what is at or before the cursor, and drops
   * system events (the `excludeSystemEvents()` rule: event types starting with `$`).
   */
  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    let cursor: Position | null = options.after ?? null;
    for (;;) {
      const want = options.limit - out.length + 1;
      let read = 0;
      let advanced = false;
      for await (const resolved of this.client.readAll({ fromPosition: cursor ?? START, maxCount: want })) {
        read++;
        const event = resolved.event;
        if (!event || (cursor && comparePositions(event.position, cursor) <= 0)) continue;
        cursor = event.position;
        advanced = true;
        if (isUserEvent(event)) out.push(toRecorded(event));
        if (out.length === options.limit) return out;
      }
      if (read < want || !advanced) return out;
    }
  }

  /** $all has no cheap type index here: pages of `readAll`, filtered (a projector of few types on EventStoreDB reads everything). */
  async readAllOfTypes(options: ReadTypesOptions): Promise<TypedRead> {
    const types = new Set(options.types);
    const page = await this.readAll({ after: options.after ?? null, limit: options.limit });
    const events = page.filter((e) => types.has(e.type) && keeps(options.filter, e));
    return {
      events,
      through: page.at(-1)?.position ?? options.after ?? null,
      passed: page.length,
      end: page.length < options.limit,
    };
  }

  async headPosition(): Promise<Position | null> {
    // $all read backwards from the end, past system events, to the newest user event
    for await (const resolved of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1000 })) {
      if (resolved.event && isUserEvent(resolved.event)) return resolved.event.position;
    }
    return null;
  }

  subscribeToAll(options: SubscribeOptions = {}): Subscription {
    const after = options.after ?? null;
    const filter = options.types
      ? eventTypeFilter({
          regex: `^(${options.types.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`,
        })
      : excludeSystemEvents();
    const subscription = this.client.subscribeToAll({ fromPosition: after ?? START, filter });
    async function* run(): AsyncGenerator<RecordedEvent> {
      for await (const resolved of subscription) {
        const event = resolved.event;
        if (!event || (after && comparePositions(event.position, after) <= 0)) continue;
        yield toRecorded(event);
      }
    }
    return Object.assign(run(), { unsubscribe: () => subscription.unsubscribe() });
  }

  /**
   * EventStoreDB has no NOTIFY; its subscriptions are pushed already. For callers that poll
   * `readAll`, one live subscription from the end of `$all` (opened on first use) turns every
   * new user event, from any process, into a hint.
   */
  onAppended(listener: () => void, types?: readonly string[]): () => void {
    const entry = hintListener(listener, types);
    this.listeners.add(entry);
    if (!this.hints) this.openHints();
    return () => {
      this.listeners.delete(entry);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.hints?.unsubscribe();
    await this.client.dispose();
  }

  private openHints(): void {
    const hints = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    this.hints = hints;
    hints.on('data', (resolved) => {
      callListeners(this.listeners, resolved.event ? new Set([resolved.event.type]) : null);
    });
    hints.on('error', () => {
      this.hints = null;
      if (this.closed || this.listeners.size === 0) return;
      setTimeout(() => {
        if (!this.closed && !this.hints) this.openHints();
      }, RECONNECT_HINTS_MS);
    });
  }
}
