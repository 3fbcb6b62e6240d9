// A value's history as a backtest folds it from the log: what it was at any moment.

/** Values in time order; `latest(t)`: the last one at or before t, with its time. */
export class Timeline<T> {
  private readonly entries: Array<{ at: number; value: T }> = [];

  add(at: number, value: T): void {
    // appends come nearly always in order: insert by a backwards walk
    let i = this.entries.length;
    while (i > 0 && this.entries[i - 1]!.at > at) i--;
    this.entries.splice(i, 0, { at, value });
  }

  latest(t: number): { at: number; value: T } | undefined {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.at <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : this.entries[lo - 1];
  }

  /** every value at or before t, oldest first */
  upTo(t: number): T[] {
    const out: T[] = [];
    for (const e of this.entries) if (e.at <= t) out.push(e.value);
    return out;
  }
}
