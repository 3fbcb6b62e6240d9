import { sameTurn } from '../../infra/same-turn.js';
import type { EventStore, ReadStreamOptions, RecordedEvent } from '../../eventstore/port.js';

/**
 * The store, with the whole-stream reads asked for in one turn of the event loop sent together
 * (readStreams: one statement on PostgreSQL; sameTurn). A live wave's runs read their listings'
 * block flags side by side, in their contexts and again in admission: a statement each, before.
 * Everything else is the store's own.
 */
export function streamReadsTogether(store: EventStore): EventStore {
  const together = sameTurn((streams) =>
    streams.length === 1 ? Promise.all([store.readStream(streams[0]!)]) : store.readStreams(streams),
  );
  const readStream = async (stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> =>
    options?.fromRevision !== undefined || options?.maxCount !== undefined
      ? store.readStream(stream, options)
      : [...(await together(stream))];
  return new Proxy(store, {
    get(target, key) {
      if (key === 'readStream') return readStream;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
