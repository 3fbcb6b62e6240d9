// The store's limits (spec 2.14, 8: values expire 7 days after the write; sizes are ours, see
// docs/decisions/043-automation-store.md). The whole store is copied into
// every run's isolate, so its size is a cost every run pays: 1 MiB copies in about a millisecond
// and stays far below the 64 MB the isolate may use.

export const STORE_LIMITS = {
  /** UTF-8 bytes of one key */
  keyBytes: 256,
  /** UTF-8 bytes of one value's JSON text */
  valueBytes: 16_384,
  /** keys one automation holds */
  keys: 1_000,
  /** UTF-8 bytes of every key and value's JSON text of one automation */
  totalBytes: 1_048_576,
} as const;

/** spec 8: a value expires 7 days after its write. */
export const STORE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** What one entry counts against the automation's total: its key and its value's JSON text. */
export const entryBytes = (key: string, valueJson: string): number => utf8Bytes(key) + utf8Bytes(valueJson);
