import { createHash } from 'node:crypto';

// One canonical form for everything the domain compares by content (a page's rows, a creation's
// payload): JSON with object keys sorted at every level, so equal data gives equal text and hash
// whatever order its keys came in. Stored hashes are of this text, so it must never change by a
// byte. It is defined as JSON.stringify with a replacer that rebuilds each object from its sorted
// entries; a rebuilt object lists its array-index keys ('0', '7', '10') first, in numeric order,
// as every JavaScript object does. That definition allocated an object and an array of entries
// per object, a fifth of a backfill's CPU (the pages' rows): the walk below writes the same text.

/** Keys JavaScript lists first, in numeric order: canonical array indices (below 2^32 - 1). */
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const isArrayIndex = (key: string) => ARRAY_INDEX.test(key) && Number(key) < 4_294_967_295;

// Rows repeat their keys: each quoted once (bounded, since keys come from data).
const QUOTED_KEYS = 10_000;
const quoted = new Map<string, string>();
function member(key: string): string {
  let text = quoted.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (quoted.size < QUOTED_KEYS) quoted.set(key, text);
  }
  return text;
}

/** A value as JSON.stringify writes it (undefined where it drops the member), keys sorted. */
function write(value: unknown, key: string): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return JSON.stringify(value); // undefined, functions and symbols: dropped; bigint: throws
  }
  if (value === null) return 'null';
  let v = value as object;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    const json: unknown = (v as { toJSON(key: string): unknown }).toJSON(key);
    if (json === null || typeof json !== 'object') return JSON.stringify(json);
    v = json;
  }
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += `${i > 0 ? ',' : ''}${write(v[i], String(i)) ?? 'null'}`;
    return `${out}]`;
  }
  const keys = Object.keys(v);
  // Object.keys lists the array indices first, in numeric order; the other keys go sorted
  let named = 0;
  while (named < keys.length && isArrayIndex(keys[named]!)) named++;
  const ordered = named === 0 ? keys.sort() : [...keys.slice(0, named), ...keys.slice(named).sort()];
  let out = '{';
  for (const k of ordered) {
    const text = write((v as Record<string, unknown>)[k], k);
    if (text !== undefined) out += `${out.length > 1 ? ',' : ''}${member(k)}${text}`;
  }
  return `${out}}`;
}

/** JSON with object keys sorted at every level (JSON.stringify's rules otherwise: undefined members dropped). */
export function canonicalJson(value: unknown): string {
  return write(value, '') as string;
}

export const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');
