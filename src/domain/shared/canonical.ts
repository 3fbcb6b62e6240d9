import { createHash } from 'node:crypto';

// One canonical form for everything the domain compares by content (a page's rows, a creation's
// payload): JSON with object keys sorted at every level, so equal data gives equal text and hash
// whatever order its keys came in.

/** JSON with object keys sorted at every level (JSON.stringify's rules otherwise: undefined members dropped). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
