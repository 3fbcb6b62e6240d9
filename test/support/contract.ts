import type { Field } from '../../src/runtime/contracts/fields.js';

// Holds a built context against the contract describe_stream_type publishes for its scope: every
// contract field present (unless optional) with its type and nullability, and no key the contract
// does not list under an object whose keys it lists (objects it lists no keys of, such as native
// `data`, and fields marked `open` may carry the provider's own keys).

/** The keys the sandbox adds itself (spec 4.11.6): not part of what the builders make. */
export const SANDBOX_KEYS = ['mutations', 'webhooks', 'store'];

const typeOf = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v);

/** The values at a contract path (`a.b[].c`): every element of each `[]` array, absent keys skipped. */
function valuesAt(root: unknown, path: string): unknown[] {
  if (path === '') return [root];
  let values: unknown[] = [root];
  for (const token of path.split('.')) {
    const array = token.endsWith('[]');
    const key = array ? token.slice(0, -2) : token;
    values = values.flatMap((v) =>
      v && typeof v === 'object' && !Array.isArray(v) && key in v ? [(v as Record<string, unknown>)[key]] : [],
    );
    if (array) values = values.flatMap((v) => (Array.isArray(v) ? v : []));
  }
  return values;
}

const parentOf = (path: string) => {
  const at = path.lastIndexOf('.');
  return { parent: at < 0 ? '' : path.slice(0, at), key: at < 0 ? path : path.slice(at + 1) };
};

/** What is wrong with `context` against `fields` (the sandbox's keys left out); empty when nothing is. */
export function contractViolations(fields: readonly Field[], context: unknown): string[] {
  const own = fields.filter((f) => !SANDBOX_KEYS.includes(f.path.split(/[.[]/)[0]!));
  const byPath = new Map(own.map((f) => [f.path, f]));
  const problems: string[] = [];
  for (const sandbox of SANDBOX_KEYS)
    if (context && typeof context === 'object' && sandbox in context) problems.push(`${sandbox}: the sandbox adds it`);
  const listed = new Map<string, Set<string>>();
  for (const f of own) {
    const { parent, key } = parentOf(f.path);
    listed.set(parent, (listed.get(parent) ?? new Set()).add(key));
    for (const holder of valuesAt(context, parent)) {
      if (!holder || typeof holder !== 'object' || Array.isArray(holder)) continue;
      if (!(key in holder)) {
        if (!f.optional) problems.push(`${f.path}: missing`);
        continue;
      }
      const v = (holder as Record<string, unknown>)[key];
      if (v === null) {
        if (!f.nullable) problems.push(`${f.path}: null, but not nullable`);
      } else if (v === undefined || typeOf(v) !== f.type) problems.push(`${f.path}: ${typeOf(v)}, not ${f.type}`);
    }
  }
  for (const [parent, keys] of listed) {
    if (byPath.get(parent.replace(/\[\]$/, ''))?.open) continue;
    for (const holder of valuesAt(context, parent)) {
      if (!holder || typeof holder !== 'object' || Array.isArray(holder)) continue;
      for (const key of Object.keys(holder))
        if (!keys.has(key) && !SANDBOX_KEYS.includes(parent === '' ? key : ''))
          problems.push(`${parent ? `${parent}.` : ''}${key}: not in the contract`);
    }
  }
  return [...new Set(problems)];
}

/** Contract paths (leaves and branches) the context shows at least one value for: what the check could test. */
export function pathsShown(fields: readonly Field[], context: unknown): Set<string> {
  return new Set(
    fields
      .filter((f) => !SANDBOX_KEYS.includes(f.path.split(/[.[]/)[0]!))
      .filter((f) => {
        const { parent, key } = parentOf(f.path);
        return valuesAt(context, parent).some(
          (h) => h !== null && typeof h === 'object' && !Array.isArray(h) && key in h,
        );
      })
      .map((f) => f.path),
  );
}
