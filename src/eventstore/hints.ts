// Wake-up hints that say which event types an append wrote, so a reader of a few types (the
// live-runs reactor follows marketplace events and automations) sleeps through the appends of
// the others (runs, receipts, dispatch), each of which would otherwise cost it a look at the log.
// A hint that doesn't say (`null`: an older process's NOTIFY) wakes every listener.

/** A listener of hints: every type (`types` null) or those only. */
export interface HintListener {
  listener: () => void;
  types: ReadonlySet<string> | null;
}

export const hintListener = (listener: () => void, types?: readonly string[]): HintListener => ({
  listener,
  types: types ? new Set(types) : null,
});

/** Calls the listeners the hinted types concern (all of them when `types` is null). */
export function callListeners(listeners: Iterable<HintListener>, types: ReadonlySet<string> | null): void {
  for (const { listener, types: wanted } of listeners)
    if (!wanted || !types || [...types].some((t) => wanted.has(t))) listener();
}

/** The types hinted since the last `take`: null once a hint didn't say which. */
export class HintedTypes {
  private types: Set<string> | null = new Set();

  add(types: Iterable<string> | null): void {
    if (!types) this.types = null;
    else if (this.types) for (const t of types) this.types.add(t);
  }

  take(): Set<string> | null {
    const types = this.types;
    this.types = new Set();
    return types;
  }
}

// A NOTIFY payload holds at most 8,000 bytes; past this many the hint names no types.
const MAX_PAYLOAD = 7_000;

/** A NOTIFY payload: the store that appended (it passes over its own echo) and the types it wrote. */
export function notifyPayload(from: string, types: ReadonlySet<string> | null): string {
  const named = JSON.stringify({ from, types: types ? [...types] : null });
  return named.length <= MAX_PAYLOAD ? named : JSON.stringify({ from, types: null });
}

/** What a NOTIFY payload says; one that isn't ours (a bare store id, as older processes send) says no types. */
export function readNotifyPayload(payload: string): { from: string; types: Set<string> | null } {
  try {
    const p = JSON.parse(payload) as { from?: unknown; types?: unknown };
    if (typeof p.from === 'string')
      return {
        from: p.from,
        types:
          Array.isArray(p.types) && p.types.every((t) => typeof t === 'string') ? new Set(p.types as string[]) : null,
      };
  } catch {
    // not JSON: an older process's payload
  }
  return { from: payload, types: null };
}
