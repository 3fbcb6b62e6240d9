import { createRng, type Rng } from '../prng.js';

// Report figures are computed from (seed, what, which) alone, so any day of any listing can be
// generated on demand, in any order, without holding the rest.

const DAY_MS = 86_400_000;

/** A generator for one key, independent of every other key (FNV-1a, then a murmur finalizer). */
export function keyedRng(seed: number, ...key: readonly (string | number)[]): Rng {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (const ch of `${key.join('\u0000')}`) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return createRng((h ^ (h >>> 16)) >>> 0);
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date (UTC). */
export const dayNumber = (date: string): number => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);

export const dateOfDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The UTC day an instant falls on. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

export const isDate = (value: unknown): value is string =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && dateOfDay(dayNumber(value)) === value;

/** A wire date or date-time (`2025-01-05`, `2025-01-05T00:00:00Z`) as its UTC day; undefined if neither. */
export function dayOfWire(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isFinite(ms) ? dayOf(ms) : undefined;
}
