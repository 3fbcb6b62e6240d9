import { comparePositions, type EventStore, type Position, type RecordedEvent, type Subscription } from './port.js';

/**
 * Catch-up then live over `readAll` paging (`readAllOfTypes` with `types`): reads pages until one
 * comes back short, then waits for an `onAppended` hint or the poll interval, whichever comes
 * first (with `types`, a hint of appends of those types). A hint that arrives while a page is
 * being read is remembered, so none is lost between read and wait.
 */
export function pollingSubscription(
  store: Pick<EventStore, 'readAll' | 'readAllOfTypes' | 'onAppended'>,
  options: { after: Position | null; types?: readonly string[]; batchSize: number; pollIntervalMs: number },
): Subscription {
  let after = options.after;
  let closed = false;
  let hinted = false;
  let wake: (() => void) | null = null;
  const unregister = store.onAppended(() => {
    hinted = true;
    wake?.();
  }, options.types);

  const waitForHint = () =>
    new Promise<void>((resolve) => {
      if (hinted || closed) return resolve();
      const timer = setTimeout(done, options.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  /** The next page; how far it looked (events of other types passed over); whether the log may hold more now. */
  async function read(): Promise<{ events: RecordedEvent[]; through: Position | null; more: boolean }> {
    const limit = options.batchSize;
    if (!options.types) {
      const events = await store.readAll({ after, limit });
      return { events, through: events.at(-1)?.position ?? after, more: events.length === limit };
    }
    const { events, through, end } = await store.readAllOfTypes({ after, types: options.types, limit });
    // a read that moved on may have stopped at the end of its scan, not of the log
    return {
      events,
      through,
      more: !end && through !== null && (after === null || comparePositions(through, after) > 0),
    };
  }

  async function* run(): AsyncGenerator<RecordedEvent> {
    try {
      while (!closed) {
        hinted = false;
        const { events, through, more } = await read();
        for (const event of events) {
          if (closed) return;
          after = event.position;
          yield event;
        }
        after = through;
        if (!more) await waitForHint();
      }
    } finally {
      unregister();
    }
  }

  return Object.assign(run(), {
    async unsubscribe() {
      closed = true;
      unregister();
      wake?.();
    },
  });
}
