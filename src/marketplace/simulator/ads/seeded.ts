import { createRng, type Rng } from '../prng.js';

/** A generator for one named thing (FNV-1a of its parts): the same parts, the same draws,
 * whatever else was generated before. */
export function rngOf(...parts: ReadonlyArray<string | number>): Rng {
  let h = 0x811c9dc5;
  const text = parts.join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return createRng(h >>> 0);
}

/** A 15-digit numeric id as the ads API writes them (a string in v3 entities), from two
 * draws so that thousands of ids don't collide. */
export function entityId(rng: Rng): string {
  return `${rng.int(100_000, 999_999)}${rng.int(0, 999_999_999).toString().padStart(9, '0')}`;
}
