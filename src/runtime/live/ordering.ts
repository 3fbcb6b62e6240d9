import type { Position } from '../../eventstore/port.js';

// How the live reactor runs events concurrently yet safely:
// - `KeyedLanes`: events sharing a key (the same listing, say) run one after another in log
//   order; events with no key in common run side by side.
// - `ContiguousProgress`: the durable checkpoint may only pass an event once it and every event
//   before it are done, so a restart re-runs what was in flight (admission is idempotent) and
//   loses nothing.

export class KeyedLanes {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` after every earlier work sharing one of `keys` has settled. */
  run(keys: readonly string[], work: () => Promise<void>): Promise<void> {
    const before = keys.map((k) => this.tails.get(k)).filter((p): p is Promise<void> => p !== undefined);
    const done = Promise.all(before).then(work);
    const tail = done.catch(() => undefined);
    for (const key of keys) {
      this.tails.set(key, tail);
      // forget a lane once its last work settled, so the map holds only busy keys
      void tail.then(() => {
        if (this.tails.get(key) === tail) this.tails.delete(key);
      });
    }
    return done;
  }

  get busy(): number {
    return this.tails.size;
  }
}

/** An event begun: done once finished. */
export interface ProgressEntry {
  position: Position;
  done: boolean;
}

export class ContiguousProgress {
  private readonly pending: ProgressEntry[] = [];
  private settled: Position | null;

  constructor(start: Position | null) {
    this.settled = start;
  }

  /** An event taken from the log, in log order; call `done` with the handle when it is finished. */
  begin(position: Position): ProgressEntry {
    const entry = { position, done: false };
    this.pending.push(entry);
    return entry;
  }

  done(entry: { done: boolean }): void {
    entry.done = true;
    while (this.pending[0]?.done) this.settled = this.pending.shift()!.position;
  }

  /** The last position before which everything is finished. */
  get position(): Position | null {
    return this.settled;
  }

  get inFlight(): number {
    return this.pending.length;
  }

  /** The events begun beyond `position`, finished or not, in log order. */
  get unsettled(): readonly ProgressEntry[] {
    return this.pending;
  }
}
