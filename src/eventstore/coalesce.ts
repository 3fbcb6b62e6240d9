/** A function that runs at most once per interval; `cancel` drops a call still waiting. */
export interface Coalesced {
  (): void;
  cancel(): void;
}

/**
 * Wraps `fn` so it runs now or, within `everyMs` of its last run, once that has passed: every
 * call meanwhile shares that one run. For wake-up hints, where a burst of appends needs one look
 * at the log, not one per append.
 */
export function coalesced(fn: () => void, everyMs: number): Coalesced {
  // never run yet: the first call runs at once, however soon after the process started
  let last = -Infinity;
  let timer: NodeJS.Timeout | null = null;
  const call = (): void => {
    if (timer) return;
    const wait = last + everyMs - performance.now();
    if (wait > 0) {
      timer = setTimeout(() => {
        timer = null;
        call();
      }, wait);
      return;
    }
    last = performance.now();
    fn();
  };
  return Object.assign(call, {
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  });
}
