// A read the live reactor repeats from one event to the next (an account's view, the live
// automation of an account and type), kept for `ttlMs` from when it was made (Infinity: until
// cleared): a burst of events of an account costs one read a second, not one each, and a change
// shows in live runs at most `ttlMs` after it shows in the read model, or as soon as the reactor
// clears it on the change's event. The entry is the read itself, so one begun before a clear is
// dropped with the rest; a failed read is forgotten at once, so the next event reads again.

export class Recent<V> {
  private readonly reads = new Map<string, { at: number; value: Promise<V> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly read: (key: string) => Promise<V>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Forgets every read kept: the next get of each key reads again. */
  clear(): void {
    this.reads.clear();
  }

  get(key: string): Promise<V> {
    const at = this.now();
    const kept = this.reads.get(key);
    if (kept && at - kept.at < this.ttlMs) return kept.value;
    const value = this.read(key);
    const entry = { at, value };
    this.reads.set(key, entry);
    value.catch(() => this.reads.get(key) === entry && this.reads.delete(key));
    // the map holds only reads young enough to be used again
    for (const [k, e] of this.reads) if (at - e.at >= this.ttlMs) this.reads.delete(k);
    return value;
  }
}
