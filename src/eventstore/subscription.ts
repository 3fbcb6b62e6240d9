import type { EventStore, Position, RecordedEvent, Subscription } from './port.js';

/**
 * Catch-up then live over `readAll` paging: reads pages until one comes back short, then
 * waits for an `onAppended` hint or the poll interval, whichever comes first. A hint that
 * arrives while a page is being read is remembered, so none is lost between read and wait.
 */
export function pollingSubscription(
  store: Pick<EventStore, 'readAll' | 'onAppended'>,
  options: { after: Position | null; batchSize: number; pollIntervalMs: number },
): Subscription {
  let after = options.after;
  let closed = false;
  let hinted = false;
  let wake: (() => void) | null = null;
  const unregister = store.onAppended(() => {
    hinted = true;
    wake?.();
  });

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

  async function* run(): AsyncGenerator<RecordedEvent> {
    try {
      while (!closed) {
        hinted = false;
        const page = await store.readAll({ after, limit: options.batchSize });
        for (const event of page) {
          if (closed) return;
          after = event.position;
          yield event;
        }
        if (page.length < options.batchSize) await waitForHint();
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
