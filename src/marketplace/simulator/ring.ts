// A log that keeps only its latest `limit` entries: a ring, the oldest overwritten, so a long
// run costs neither unbounded memory nor a copy of the whole log per entry.

export interface Ring<T> {
  push(entry: T): void;
  /** The kept entries, oldest first (a copy). */
  list(): T[];
  clear(): void;
}

export function createRing<T>(limit: number): Ring<T> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`ring limit ${limit}: not a positive integer`);
  let entries: T[] = [];
  /** entries pushed since the last clear; the next goes to entries[count % limit] */
  let count = 0;
  return {
    push(entry) {
      entries[count % limit] = entry;
      count++;
    },
    list: () => (count <= limit ? [...entries] : [...entries.slice(count % limit), ...entries.slice(0, count % limit)]),
    clear() {
      entries = [];
      count = 0;
    },
  };
}
