import { createHash, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

/**
 * A name-based (version 5 style) uuid: the same name always gives the same id, so
 * observed provider entities map to stable local ids without a lookup table.
 */
export function stableId(namespace: string, name: string): string {
  const h = createHash('sha1').update(`${namespace}\u0000${name}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** The user behind the open demo endpoint; its accounts are filled from the simulator. */
export const DEMO_USER_ID = stableId('user', 'demo');
