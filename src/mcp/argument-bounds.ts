import { DomainError } from '../domain/shared/errors.js';
import { formatPath } from './errors.js';

// Bounds every tool's arguments before anything walks them recursively (zod, the storability
// check, canonical JSON, jsonb): a value nested thousands of levels deep would otherwise
// overflow the stack and surface as `unavailable`. The walk here is iterative and stops at the
// first value past a bound.

/** Deeper than any payload the marketplace takes (a purchasable_offer patch is about 10 levels). */
export const MAX_ARGUMENT_DEPTH = 32;
/** Over the largest argument the tools accept (100,000-byte code or events, 50 update rows) with room to spare. */
export const MAX_ARGUMENT_BYTES = 512 * 1024;

/** Keys that reach an object's prototype when code copies them by assignment. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * `invalid` naming where the arguments break a bound: not an object of named arguments, a
 * prototype key (`__proto__`, `constructor`, `prototype`), nested deeper than
 * MAX_ARGUMENT_DEPTH, or larger than MAX_ARGUMENT_BYTES of JSON (counted roughly:
 * text as UTF-8 plus quotes and separators). Null when within bounds. `undefined` (no
 * arguments) is within bounds.
 */
export function argumentBoundsError(args: unknown): DomainError | null {
  if (args === undefined) return null;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    const got = args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`;
    return new DomainError(
      'invalid',
      `(arguments): must be an object of named arguments, got ${got}; pass {} or omit arguments for none`,
      { argument: '(arguments)' },
    );
  }
  let bytes = 0;
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value: args, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') bytes += utf8Bytes(value) + 2;
    else if (typeof value !== 'object' || value === null) bytes += String(value).length;
    else {
      if (path.length >= MAX_ARGUMENT_DEPTH) {
        const at = formatPath(path);
        return new DomainError(
          'invalid',
          `${at}: nested deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays; flatten it`,
          { argument: at },
        );
      }
      bytes += 2;
      const isArray = Array.isArray(value);
      for (const [k, v] of Object.entries(value)) {
        if (!isArray && PROTOTYPE_KEYS.has(k)) {
          const at = formatPath([...path, k]);
          return new DomainError(
            'invalid',
            `${at}: a key named ${k} is refused anywhere in the arguments (it names a JavaScript object's prototype); rename it`,
            { argument: at },
          );
        }
        bytes += 1 + (isArray ? 0 : utf8Bytes(k) + 3);
        stack.push({ value: v, path: [...path, isArray ? Number(k) : k] });
      }
    }
    if (bytes > MAX_ARGUMENT_BYTES) {
      const at = path.length > 0 ? formatPath(path.slice(0, 1)) : '(arguments)';
      return new DomainError(
        'invalid',
        `${at}: the arguments are over ${MAX_ARGUMENT_BYTES} bytes of JSON (the limit); send less in one call`,
        { argument: at, limit_bytes: MAX_ARGUMENT_BYTES },
      );
    }
  }
  return null;
}

/**
 * Cuts, in place, every object or array nested deeper than `depth` down to `{}`, without
 * recursion. The MCP adapter serializes a parsed request body again (JSON.stringify), which
 * overflows the stack some thousands of levels down: cut well past MAX_ARGUMENT_DEPTH, a body
 * reaches the tool intact up to its bound, so the tool still refuses it as `invalid`, naming
 * the same path.
 */
export function cutDeeperThan<T>(value: T, depth: number): T {
  const stack: Array<{ node: Record<string, unknown>; level: number }> = [];
  if (typeof value === 'object' && value !== null) stack.push({ node: value as Record<string, unknown>, level: 1 });
  while (stack.length > 0) {
    const { node, level } = stack.pop()!;
    for (const [k, v] of Object.entries(node)) {
      if (typeof v !== 'object' || v === null) continue;
      if (level >= depth) node[k] = {};
      else stack.push({ node: v as Record<string, unknown>, level: level + 1 });
    }
  }
  return value;
}
