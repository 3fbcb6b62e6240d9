import fc from 'fast-check';

// Malformed tool arguments derived from a tool's own listed input schema (the JSON Schema that
// tools/list serves): a plausible call first, so the tool's deeper checks are reached, then
// broken in one way a hostile or careless client would break it.

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
};

/** Strings that have broken services: SQL, templates, paths, markup, NUL, lone surrogates, prototype names. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  "'; drop table events; --",
  '" or 1=1 --',
  "1' union select * from pg_user --",
  '${7*7}',
  '{{constructor.constructor("return process")()}}',
  '../../../../etc/passwd',
  '<script>alert(1)</script>',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '\u202eevil',
  '🦄'.repeat(50),
  '__proto__',
  'constructor',
  'prototype',
  '%00',
  '\\',
  '2026-13-45T25:61:00Z',
  'NaN',
  '-1',
];
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

const hostileString = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ maxLength: 40, unit: 'binary' }));
const hostileNumber = fc.constantFrom(0, -1, -0.5, 1.5, 101, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308);
/**
 * A value nested `depth` levels (`{"a":[{"a":…}]}`), deeper than JSON.stringify itself can
 * write (about 10,000 levels on Node 24): `fuzzJson` writes it as text.
 */
export class Deep {
  constructor(readonly depth: number) {}
  text(): string {
    const open = Array.from({ length: this.depth }, (_, i) => (i % 2 ? '[' : '{"a":')).join('');
    const close = Array.from({ length: this.depth }, (_, i) => (i % 2 ? ']' : '}'))
      .reverse()
      .join('');
    return `${open}1${close}`;
  }
}

const DEEP_MARK = '\u0001deep:';

/** JSON text of a message that may hold Deep values anywhere. */
export function fuzzJson(message: unknown): string {
  const text = JSON.stringify(message, (_k, v: unknown) => (v instanceof Deep ? `${DEEP_MARK}${v.depth}` : v));
  return text.replace(/"\\u0001deep:(\d+)"/g, (_m, depth: string) => new Deep(Number(depth)).text());
}

/** Any JSON value: mostly small, now and then nested far past any sane depth (where a schema takes anything). */
const anyJson = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 5 },
  { arbitrary: fc.integer({ min: 30, max: 20_000 }).map((d) => new Deep(d)), weight: 1 },
);

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** A value that fits the schema's shape (types, enums, required keys), with hostile text where text goes. */
export function plausible(schema: Schema, hints: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<unknown> {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => plausible(s, hints)));
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const types = typesOf(schema);
  if (types.length === 0) return anyJson;
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'string':
          return fc.oneof(
            hostileString,
            fc.uuid(),
            fc.constantFrom('ATVPDKIKX0DER', '2026-01-01', 'SKU-1', 'B000000001'),
          );
        case 'integer':
          return fc.oneof(
            fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1000, 1000) }),
            hostileNumber,
          );
        case 'number':
          return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), hostileNumber);
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array':
          return fc.array(schema.items ? plausible(schema.items, hints) : anyJson, {
            minLength: Math.min(schema.minItems ?? 0, 3),
            maxLength: Math.min(schema.maxItems ?? 3, 3),
          });
        case 'object':
          return objectOf(schema, hints);
        default:
          return anyJson;
      }
    }),
  );
}

function objectOf(schema: Schema, hints: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  if (Object.keys(properties).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 });
  const model = Object.fromEntries(
    Object.entries(properties).map(([k, s]) => [
      k,
      hints[k] ? fc.oneof(hints[k]!, plausible(s, hints)) : plausible(s, hints),
    ]),
  );
  return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in properties) });
}

type Args = Record<string, unknown>;

/** One way to break a plausible call. */
const breakers: Array<fc.Arbitrary<(args: Args, schema: Schema) => unknown>> = [
  // a wrong type for one key
  fc.tuple(fc.nat(), anyJson).map(([i, v]) => (args: Args, schema: Schema) => {
    const keys = Object.keys(schema.properties ?? {});
    return keys.length ? { ...args, [keys[i % keys.length]!]: v } : { ...args, x: v };
  }),
  // a required key missing
  fc.nat().map((i) => (args: Args, schema: Schema) => {
    const required = schema.required ?? [];
    if (!required.length) return args;
    const { [required[i % required.length]!]: _, ...rest } = args;
    return rest;
  }),
  // an extra key, among them the prototype names
  fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 12 })), anyJson).map(
    ([k, v]) =>
      (args: Args) =>
        Object.defineProperty({ ...args }, k, { value: v, enumerable: true }),
  ),
  // a prototype key deep inside a value
  fc.tuple(fc.nat(), fc.constantFrom(...PROTOTYPE_KEYS)).map(([i, k]) => (args: Args, schema: Schema) => {
    const keys = Object.keys(schema.properties ?? {});
    const inner = Object.defineProperty({}, k, { value: { polluted: true }, enumerable: true });
    return keys.length ? { ...args, [keys[i % keys.length]!]: [inner] } : inner;
  }),
  // a huge value (under the HTTP body limit) in one key
  fc.tuple(fc.nat(), fc.integer({ min: 100_000, max: 900_000 })).map(([i, n]) => (args: Args, schema: Schema) => {
    const keys = Object.keys(schema.properties ?? {});
    return { ...args, [keys.length ? keys[i % keys.length]! : 'x']: 'x'.repeat(n) };
  }),
  // a deeply nested value in one key
  fc.tuple(fc.nat(), fc.integer({ min: 30, max: 20_000 })).map(([i, depth]) => (args: Args, schema: Schema) => {
    const keys = Object.keys(schema.properties ?? {});
    return { ...args, [keys.length ? keys[i % keys.length]! : 'x']: new Deep(depth) };
  }),
  // NUL or a lone surrogate in a key or a value
  fc.tuple(fc.nat(), fc.constantFrom('\u0000', '\ud800', '\udc00x')).map(([i, bad]) => (args: Args, schema: Schema) => {
    const keys = Object.keys(schema.properties ?? {});
    return i % 2 && keys.length ? { ...args, [keys[i % keys.length]!]: `a${bad}` } : { ...args, [`k${bad}`]: 1 };
  }),
  // not an object at all
  fc.constantFrom<unknown>([], 'x', 123, null, true, [{}]).map((v) => () => v),
];

/** Plausible arguments for the tool's schema, broken (or, now and then, left whole). */
export function malformedArguments(schema: Schema, hints: Record<string, fc.Arbitrary<unknown>> = {}) {
  const base = objectOf({ ...schema, type: 'object' }, hints) as fc.Arbitrary<Args>;
  return fc
    .tuple(base, fc.option(fc.oneof(...breakers), { freq: 6 }))
    .map(([args, breaker]) => (breaker ? breaker(args, schema) : args));
}
