import type { EventStore, Position, RecordedEvent } from './port.js';

/** An event just appended, where it landed (an append's events all report its last position). */
export type Appended = Pick<RecordedEvent, 'type' | 'data'> & { position: Position };

/**
 * The store as it is, but telling `onAppended` of every event a write through it lands: a caller
 * learns what its own call wrote without each command handing its positions up.
 */
export function reportingAppends(store: EventStore, onAppended: (events: Appended[]) => void): EventStore {
  const appendToStream: EventStore['appendToStream'] = async (stream, events, options) => {
    const result = await store.appendToStream(stream, events, options);
    onAppended(events.map((e) => ({ type: e.type, data: e.data, position: result.position })));
    return result;
  };
  const appendToStreams: EventStore['appendToStreams'] = async (appends) => {
    const results = await store.appendToStreams(appends);
    onAppended(
      appends.flatMap(({ events }, i) => {
        const result = results[i];
        return result ? events.map((e) => ({ type: e.type, data: e.data, position: result.position })) : [];
      }),
    );
    return results;
  };
  const createStreams: EventStore['createStreams'] = async (streams, options) => {
    const positions = await store.createStreams(streams, options);
    onAppended(
      streams.flatMap(({ event }, i) => {
        const position = positions[i];
        return position ? [{ type: event.type, data: event.data, position }] : [];
      }),
    );
    return positions;
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'appendToStream') return appendToStream;
      if (property === 'appendToStreams') return appendToStreams;
      if (property === 'createStreams') return createStreams;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
