// Reading raw provider payloads (recorded pages, pushed marketplace messages): keys may be missing
// or of another type than the model says, so every read is checked and falls back to undefined or null.

export type Json = Record<string, unknown>;

export const obj = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A non-empty string, else null. */
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
/** An integer, else null. */
export const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
