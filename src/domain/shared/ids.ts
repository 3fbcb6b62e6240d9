import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

/** Any uuid's text form, either case (local ids are looked up lower case). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let lastMs = 0;
let counter = 0;

/**
 * A time-ordered (version 7) uuid, strictly increasing within this process even in one
 * millisecond (a 12-bit counter, then the next millisecond): ids made one after another sort
 * in the order they were made, so receipts admitted in one call keep the call's order.
 */
export function newOrderedId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    lastMs += 1;
    counter = 0;
  }
  const b = randomBytes(16);
  b.writeUIntBE(lastMs, 0, 6);
  b[6] = 0x70 | (counter >> 8);
  b[7] = counter & 0xff;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const x = b.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

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
