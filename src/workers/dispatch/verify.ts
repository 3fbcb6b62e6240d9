import type { ListingsItemPatchRequest } from '../../marketplace/clients/index.js';
import { SP_RESOURCES } from '../../marketplace/clients/ads-sp-types.js';
import type { MarketplaceRequest } from './requests.js';

// Whether a target read back shows what an uncertain update, archive or listing patch asked for
// (its reply was lost: did it take effect?). Pure: the dispatcher reads the target, this compares.
// Every requested value must be there; keys the request didn't name (other fields, the
// marketplace's own additions) are ignored. A value that replaces a list must match it whole:
// a list that still has elements the request dropped was not replaced.

/** A decimal string sent for a number, or a number shown for one ("0.50" = 0.5); never two strings ("0123" is not "123"). */
const numeric = (v: unknown): number | null =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;

/**
 * `actual` holds `expected`: equal scalars, every expected key held; an expected list's every
 * element held by some element, and (`exact`) no more elements than expected.
 */
export function contains(expected: unknown, actual: unknown, exact = true): boolean {
  if (expected === null || expected === undefined) return actual === null || actual === undefined;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || (exact && actual.length !== expected.length)) return false;
    return expected.every((e) => actual.some((a) => contains(e, a, exact)));
  }
  if (typeof expected === 'object') {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([k, v]) => contains(v, (actual as Record<string, unknown>)[k], exact));
  }
  if (typeof expected === 'number' || typeof actual === 'number') {
    const [e, a] = [numeric(expected), numeric(actual)];
    return e !== null && a !== null && Math.abs(e - a) < 1e-9;
  }
  return expected === actual;
}

/** A Sponsored Products update or archive, against the entity listed now (null: not found). */
export function showsAdsChange(
  request: Extract<MarketplaceRequest, { api: 'sp' }>,
  entity: Record<string, unknown> | null,
): boolean {
  if (!entity) return false;
  if (request.operation === 'delete') return entity.state === 'ARCHIVED';
  if (request.operation !== 'update') throw new Error('creations are reconciled, not verified');
  const { [SP_RESOURCES[request.resource].idKey]: _, ...fields } = request.item;
  return contains(fields, entity);
}

/**
 * A Listings Items patch, against the listing's attributes now (null: no such listing): a
 * `replace` value is the attribute's whole value now; an `add` or `merge` value is held by it
 * (other elements may stay); a `delete` of values leaves none of them, a `delete` of a whole
 * attribute leaves it empty.
 */
export function showsListingPatches(
  body: ListingsItemPatchRequest,
  attributes: Record<string, unknown> | null,
): boolean {
  if (!attributes) return false;
  return body.patches.every((patch) => {
    const name = /^\/attributes\/(.+)$/.exec(patch.path)?.[1];
    if (!name) return false;
    const current = attributes[name];
    const values = (patch.value ?? []) as unknown[];
    if (patch.op !== 'delete') return contains(values, current, patch.op === 'replace');
    if (values.length === 0) return !Array.isArray(current) || current.length === 0;
    return !Array.isArray(current) || values.every((v) => !current.some((c) => contains(v, c, false)));
  });
}

/** The part of a listing's attributes a patch request names: what the receipt records it saw. */
export function patchedAttributes(
  body: ListingsItemPatchRequest,
  attributes: Record<string, unknown> | null,
): Record<string, unknown> | null {
  if (!attributes) return null;
  const names = body.patches.map((p) => /^\/attributes\/(.+)$/.exec(p.path)?.[1]).filter((n): n is string => !!n);
  return Object.fromEntries(names.map((n) => [n, attributes[n] ?? null]));
}

/**
 * The part of an ads entity an update or archive names (null: no such entity): what the receipt
 * records it showed before the request, and compares a read-back with.
 */
export function namedFields(
  request: Extract<MarketplaceRequest, { api: 'sp' }>,
  entity: Record<string, unknown> | null,
): Record<string, unknown> | null {
  if (!entity) return null;
  if (request.operation === 'delete') return { state: entity.state ?? null };
  const { [SP_RESOURCES[request.resource].idKey]: _, ...fields } = request.item;
  return Object.fromEntries(Object.keys(fields).map((k) => [k, entity[k] ?? null]));
}

/** The same JSON, whatever the order of keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null || Array.isArray(b)) return false;
  const [ka, kb] = [Object.keys(a), Object.keys(b)];
  return (
    ka.length === kb.length &&
    ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

const attributeOf = (path: string) => /^\/attributes\/(.+)$/.exec(path)?.[1];

/** The keys that pick which value of an attribute a `merge` changes (an offer's, a localized text's). */
const SELECTORS = ['marketplace_id', 'language_tag', 'audience', 'currency'] as const;
type Value = Record<string, unknown>;
const selectorsOf = (v: Value) => SELECTORS.filter((k) => k in v);
const sameSelection = (a: Value, b: Value) => {
  const keys = selectorsOf(a);
  return keys.length > 0 && keys.length === selectorsOf(b).length && keys.every((k) => sameJson(a[k], b[k]));
};

/**
 * An attribute's values after a `merge`: each merged value's keys set on the value its selectors
 * pick, or added; undefined when a merged value has no selector (the marketplace's to work out).
 */
function merged(current: unknown, values: readonly unknown[]): unknown[] | undefined {
  if (current !== null && current !== undefined && !Array.isArray(current)) return undefined;
  const result = [...((current as Value[] | null) ?? [])];
  for (const v of values as Value[]) {
    if (selectorsOf(v).length === 0) return undefined;
    const at = result.findIndex((e) => sameSelection(e, v));
    if (at === -1) result.push(v);
    else result[at] = { ...result[at], ...v };
  }
  return result;
}

/**
 * Patch documents of one SKU sent in one call, in order: what each one's named part is just
 * before its own patches apply, as if they had gone one by one (`attributes` read before the
 * call, null: no such listing). An earlier `replace` sets the attribute's whole value; a `merge`
 * sets its keys on the values its selectors pick. After an `add`, a `delete` or a merge without
 * selectors the value is the marketplace's to work out, so a document naming such an attribute
 * gets undefined (it must not share the call).
 */
export function priorsAlong(
  bodies: readonly ListingsItemPatchRequest[],
  attributes: Record<string, unknown> | null,
): Array<Record<string, unknown> | null | undefined> {
  const view: Record<string, unknown> = { ...attributes };
  const unknowable = new Set<string>();
  return bodies.map((body) => {
    const names = body.patches.map((p) => attributeOf(p.path));
    const prior = names.some((n) => n !== undefined && unknowable.has(n))
      ? undefined
      : attributes && patchedAttributes(body, view);
    for (const p of body.patches) {
      const name = attributeOf(p.path);
      if (name === undefined) continue;
      const after =
        p.op === 'replace' ? (p.value ?? []) : p.op === 'merge' ? merged(view[name], p.value ?? []) : undefined;
      if (after === undefined) unknowable.add(name);
      else view[name] = after;
    }
    return prior;
  });
}

/**
 * A call's patches that still stand at its end: one a later patch of the same attribute
 * overwrote (a `replace`, or a `merge` that picks each of its values again) is not looked for.
 */
export function standingPatches(bodies: readonly ListingsItemPatchRequest[]): ListingsItemPatchRequest {
  const patches = bodies.flatMap((b) => b.patches);
  const overwrites = (q: (typeof patches)[number], p: (typeof patches)[number]) =>
    q.path === p.path &&
    (q.op === 'replace' ||
      (q.op === 'merge' &&
        p.op === 'merge' &&
        (p.value ?? []).every((v) => (q.value ?? []).some((w) => sameSelection(v as Value, w as Value)))));
  return {
    ...bodies[0]!,
    patches: patches.filter((p, i) => !patches.slice(i + 1).some((q) => overwrites(q, p))),
  };
}
