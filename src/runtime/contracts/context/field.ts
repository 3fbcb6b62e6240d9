import { MAJOR, type Field, type FieldType } from '../fields.js';

// Small constructors for the context tables: one line per field, paths relative to `context`.

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
