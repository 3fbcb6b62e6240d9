import type { EventStore, ReadStreamOptions, RecordedEvent } from './port.js';

interface Waiter {
  resolve(events: RecordedEvent[]): void;
  reject(err: unknown): void;
}

/**
 * The store, with the whole-stream reads asked for in one turn of the event loop sent together
 * (readStreams: one statement on PostgreSQL). A live wave's runs read their listings' block flags
 * side by side, in their contexts and again in admission: a statement each, before. A read waits
 * at most until the turn ends; it sees the stream as that one statement does. Everything else is
 * the store's own.
 */
export function streamReadsTogether(store: EventStore): EventStore {
  let pending: Map<string, Waiter[]> | null = null;
  const flush = async (batch: Map<string, Waiter[]>) => {
    const streams = [...batch.keys()];
    try {
      const read = streams.length === 1 ? [await store.readStream(streams[0]!)] : await store.readStreams(streams);
      streams.forEach((s, i) => batch.get(s)!.forEach((w) => w.resolve([...read[i]!])));
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  };
  const readStream = (stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> => {
    if (options?.fromRevision !== undefined || options?.maxCount !== undefined)
      return store.readStream(stream, options);
    if (!pending) {
      const batch = (pending = new Map());
      setImmediate(() => {
        pending = null;
        void flush(batch);
      });
    }
    const batch = pending;
    return new Promise((resolve, reject) => {
      const waiters = batch.get(stream) ?? [];
      waiters.push({ resolve, reject });
      batch.set(stream, waiters);
    });
  };
  return new Proxy(store, {
    get(target, key) {
      if (key === 'readStream') return readStream;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
