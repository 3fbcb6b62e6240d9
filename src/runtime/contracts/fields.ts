// The vocabulary of the handler contracts: a field of `event` or `context` by its path, with its
// type, nullability and units. Event fields are read off the fixture itself (so the listed keys
// are exactly the fixture's), with notes adding what a value can't say: units, null, absence.

export type FieldType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'function';

export interface Field {
  /** dotted path from `event` or `context`; `[]` stands for every element of an array */
  path: string;
  type: FieldType;
  nullable: boolean;
  /** the key may be absent (a live event carries only what changed; some keys only in some cases) */
  optional: boolean;
  unit?: string;
  description?: string;
  /** an object (or an array's elements) that also carries keys not listed here: the provider's own, unchanged */
  open?: boolean;
}

export interface Note {
  type?: FieldType;
  nullable?: boolean;
  optional?: boolean;
  /** the keys below vary by case; the fixture shows one case (the drift test stops comparing here) */
  varies?: boolean;
  unit?: string;
  description?: string;
}

export type Notes = Readonly<Record<string, Note>>;

/** Money in an event: the provider's own figure, never converted (spec 4.11.2). */
export const AS_SENT = 'major units of the currency beside it, as the marketplace sends it';
/** Money in a context (spec 1.10). */
export const MAJOR = 'major units of the currency (e.g. 15.27)';

const typeOf = (value: unknown): FieldType =>
  Array.isArray(value) ? 'array' : value === null ? 'object' : (typeof value as FieldType);

/** Every path of `value` (objects and arrays too), in key order, annotated from `notes`. */
export function fieldsOf(value: unknown, notes: Notes, prefix = ''): Field[] {
  const fields: Field[] = [];
  const visit = (v: unknown, path: string) => {
    const note = notes[path] ?? {};
    fields.push({
      path,
      type: note.type ?? typeOf(v),
      nullable: note.nullable ?? v === null,
      optional: note.optional ?? false,
      ...(note.unit ? { unit: note.unit } : {}),
      ...(note.description ? { description: note.description } : {}),
    });
    children(v, path);
  };
  const children = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      const keys = new Map<string, unknown>();
      for (const item of v)
        if (item && typeof item === 'object')
          for (const [k, x] of Object.entries(item)) if (!keys.has(k)) keys.set(k, x);
      for (const [k, x] of keys) visit(x, `${path}[].${k}`);
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, path ? `${path}.${k}` : k);
  };
  if (prefix) visit(value, prefix);
  else children(value, '');
  return fields;
}

/** Notes under `prefix` (a payload's notes placed inside its envelope). */
export const notesUnder = (prefix: string, notes: Notes): Notes =>
  Object.fromEntries(Object.entries(notes).map(([path, note]) => [`${prefix}.${path}`, note]));

/** The same note for several paths. */
export const each = (paths: readonly string[], note: Note): Notes => Object.fromEntries(paths.map((p) => [p, note]));
