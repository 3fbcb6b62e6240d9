import { z } from 'zod';
import { MAJOR, type Field, type FieldType } from '../fields.js';

// Small constructors for the context tables: one line per field, paths relative to `context`.
// A table that is only a list is data: a JSON file beside its module, read by fieldTables.

type Extra = Partial<Pick<Field, 'nullable' | 'optional' | 'unit' | 'open'>>;

export const field = (path: string, type: FieldType, description: string, extra: Extra = {}): Field => ({
  path,
  type,
  nullable: false,
  optional: false,
  ...extra,
  description,
});

/** A mutation target's `type`, as a context names it. */
export const targetType = (type: string): Field =>
  field('type', 'string', `"${type}": the explicit mutation target type`);

/** Nullable (null says what `description` says). */
export const maybe = (path: string, type: FieldType, description: string, extra: Extra = {}): Field =>
  field(path, type, description, { nullable: true, ...extra });

/** Money in a context: a number in major units. */
export const money = (path: string, description: string, nullable = false): Field =>
  field(path, 'number', description, { nullable, unit: MAJOR });

/** An object field followed by its own fields. */
export const objectAt = (path: string, description: string, fields: readonly Field[], extra: Extra = {}): Field[] => [
  field(path, 'object', description, extra),
  ...under(path, fields),
];

/** An array field followed by the fields of its elements. */
export const listAt = (path: string, description: string, fields: readonly Field[], extra: Extra = {}): Field[] => [
  field(path, 'array', description, extra),
  ...under(`${path}[]`, fields),
];

/** The same fields mounted under `prefix` (an object or an array's elements, `x[]`). */
export const under = (prefix: string, fields: readonly Field[]): Field[] =>
  fields.map((f) => ({ ...f, path: `${prefix}.${f.path}` }));

const FIELD_TYPES = [
  'string',
  'number',
  'boolean',
  'object',
  'array',
  'function',
] as const satisfies readonly FieldType[];

/** A JSON field: `unit: "major"` is money in a context (MAJOR); flags default to false. */
const ENTRY = z
  .object({
    path: z.string().min(1),
    type: z.enum(FIELD_TYPES),
    nullable: z.literal(true).optional(),
    optional: z.literal(true).optional(),
    unit: z.string().min(1).optional(),
    open: z.literal(true).optional(),
    description: z.string().min(1),
  })
  .strict()
  .transform(({ path, type, description, nullable, optional, unit, open }): Field =>
    field(path, type, description, {
      ...(nullable && { nullable }),
      ...(optional && { optional }),
      ...(unit && { unit: unit === 'major' ? MAJOR : unit }),
      ...(open && { open }),
    }),
  );
const TABLES = z.record(z.string(), z.array(ENTRY).min(1));

/** A module's field tables from its JSON (`{ name: [field, …] }`); throws on a malformed entry. */
export const fieldTables = <T extends Record<string, unknown>>(
  json: T,
): { readonly [K in keyof T]: readonly Field[] } => TABLES.parse(json) as { [K in keyof T]: Field[] };
