/**
 * Single reads asked for in one turn of the event loop, answered by one read of them all: a
 * batch's runs make the same small reads side by side, and each statement costs a round trip and
 * the server's work. `readAll` gets each key once and answers in the order given. A read waits at
 * most until the turn ends; a failure of the joint read fails each read in it.
 */
export function sameTurn<T>(readAll: (keys: readonly string[]) => Promise<readonly T[]>): (key: string) => Promise<T> {
  let pending: Map<string, Array<{ resolve(value: T): void; reject(err: unknown): void }>> | null = null;
  const flush = async (batch: NonNullable<typeof pending>) => {
    const keys = [...batch.keys()];
    try {
      const read = await readAll(keys);
      keys.forEach((k, i) => batch.get(k)!.forEach((w) => w.resolve(read[i]!)));
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  };
  return (key) => {
    if (!pending) {
      const batch = (pending = new Map());
      setImmediate(() => {
        pending = null;
        void flush(batch);
      });
    }
    const batch = pending;
    return new Promise((resolve, reject) => batch.set(key, [...(batch.get(key) ?? []), { resolve, reject }]));
  };
}
