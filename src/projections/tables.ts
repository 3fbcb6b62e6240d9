import type { Knex } from 'knex';
import type { RecordedEvent } from '../eventstore/port.js';
import { parseEvent, type DomainEvent, type EventSchemas } from '../domain/shared/decider.js';
import { quoteIdent } from '../infra/sql.js';
import type { Projection } from './projection.js';

// Read-model tables are declared as data, one line a column, and built here, so a projection says
// what its tables hold rather than how knex spells it; and a projection that reads one family of
// domain events says which once: its `handles` and the parse of what it applies follow from it.

/**
 * A column: its type (uuid, text, text[], integer, bigint, numeric, double, boolean, date,
 * timestamptz, jsonb), then any of `primary`, `null` (a column is NOT NULL unless it says `null`),
 * `unique` and `index`, e.g. `'timestamptz index'`, `'text null'`.
 */
export type Columns = Readonly<Record<string, string>>;

export interface TableSpec {
  columns: Columns;
  /** a primary key over several columns (one column says `primary` itself) */
  primary?: readonly string[];
  /** indexes over several columns, each in its column order */
  indexes?: ReadonlyArray<readonly string[]>;
}

/** Several columns declared alike. */
export const columnsOf = (names: readonly string[], declaration: string): Columns =>
  Object.fromEntries(names.map((name) => [name, declaration]));

const FLAGS = new Set(['primary', 'null', 'unique', 'index']);

function typed(t: Knex.CreateTableBuilder, name: string, type: string): Knex.ColumnBuilder {
  switch (type) {
    case 'uuid':
      return t.uuid(name);
    case 'text':
      return t.text(name);
    case 'text[]':
      return t.specificType(name, 'text[]');
    case 'integer':
      return t.integer(name);
    case 'bigint':
      return t.bigInteger(name);
    case 'numeric':
      return t.decimal(name, null);
    case 'double':
      return t.double(name);
    case 'boolean':
      return t.boolean(name);
    case 'date':
      return t.date(name);
    case 'timestamptz':
      return t.timestamp(name, { useTz: true });
    case 'jsonb':
      return t.jsonb(name);
    default:
      throw new Error(`column ${name}: unknown type '${type}'`);
  }
}

/** Adds the declared columns to a table being built. */
export function addColumns(t: Knex.CreateTableBuilder, columns: Columns): void {
  for (const [name, declaration] of Object.entries(columns)) {
    const [type = '', ...flags] = declaration.split(' ');
    const unknown = flags.filter((f) => !FLAGS.has(f));
    if (unknown.length > 0) throw new Error(`column ${name}: unknown ${unknown.join(', ')} in '${declaration}'`);
    const column = typed(t, name, type);
    // a primary key column is NOT NULL by the key itself
    if (flags.includes('primary')) column.primary();
    else if (!flags.includes('null')) column.notNullable();
    if (flags.includes('unique')) column.unique();
    if (flags.includes('index')) column.index();
  }
}

/** Creates the tables in `schema`, in the order given. */
export async function createTables(
  db: Knex | Knex.Transaction,
  schema: string,
  tables: Readonly<Record<string, TableSpec>>,
): Promise<void> {
  for (const [name, spec] of Object.entries(tables))
    await db.schema.withSchema(schema).createTable(name, (t) => {
      addColumns(t, spec.columns);
      if (spec.primary) t.primary([...spec.primary]);
      for (const index of spec.indexes ?? []) t.index([...index]);
    });
}

export interface EventProjectionSpec<Event extends DomainEvent> {
  name: string;
  /** bump when the tables or the fold change */
  version: number;
  /** the schemas of the events it reads: they are its `handles`, and parse each event before `apply` */
  events: EventSchemas<Event>;
  tables: Readonly<Record<string, TableSpec>>;
  /** what the tables need beyond columns and plain indexes (partial or expression indexes) */
  afterCreate?: (db: Knex | Knex.Transaction, schema: string) => Promise<void>;
  apply(trx: Knex.Transaction, event: Event, recorded: RecordedEvent, schema: string): Promise<void>;
  /** set-based, for a batch of several (Projection.applyMany): must leave the rows `apply` leaves, one event at a time */
  applyMany?(trx: Knex.Transaction, batch: ReadonlyArray<Parsed<Event>>, schema: string): Promise<void>;
}

/** An event of a batch, parsed, with the event as recorded. */
export interface Parsed<Event extends DomainEvent> {
  event: Event;
  recorded: RecordedEvent;
}

/** A projection of one family of domain events into tables declared as data. */
export function eventProjection<Event extends DomainEvent>(spec: EventProjectionSpec<Event>): Projection {
  const applyMany = spec.applyMany?.bind(spec);
  return {
    name: spec.name,
    version: spec.version,
    handles: Object.keys(spec.events),
    tables: Object.keys(spec.tables),
    async createTables(db, schema) {
      await createTables(db, schema, spec.tables);
      await spec.afterCreate?.(db, schema);
    },
    apply: (trx, recorded, schema) => spec.apply(trx, parseEvent(spec.events, recorded), recorded, schema),
    ...(applyMany && {
      applyMany: (trx: Knex.Transaction, events: readonly RecordedEvent[], schema: string) =>
        applyMany(
          trx,
          events.map((recorded) => ({ event: parseEvent(spec.events, recorded), recorded })),
          schema,
        ),
    }),
  };
}

/** PostgreSQL binds at most this many parameters in one statement. */
const MAX_PARAMETERS = 65_535;

/** `rows` in runs that one multi-row statement each can bind: a run's rows times the columns any
 * row has (knex sends a missing one as DEFAULT, unbound) stay within PostgreSQL's limit. */
export function bindableRuns<T extends object>(rows: readonly T[]): T[][] {
  const columns = new Set<string>();
  for (const row of rows) for (const column in row) columns.add(column);
  const size = Math.floor(MAX_PARAMETERS / Math.max(columns.size, 1));
  return Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));
}

/** A statement of `insertRows` holds at most this many rows, and about this many bytes of JSON. */
const JSON_RUN_ROWS = 20_000;
const JSON_RUN_BYTES = 16 * 2 ** 20;

/** A table's or view's columns with their types as `format_type` prints them (no modifiers), in order; an error when it does not exist. */
export async function relationColumns(
  db: Knex | Knex.Transaction,
  relation: string,
): Promise<Array<{ name: string; type: string }>> {
  const { rows } = await db.raw(
    `select a.attname as name, format_type(a.atttypid, null) as type from pg_attribute a
     where a.attrelid = ?::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum`,
    [relation],
  );
  return rows;
}

const columnTypes = new Map<string, Promise<Map<string, string>>>();

/** The table's column types, read once per process per table name. */
function typesOf(db: Knex | Knex.Transaction, schema: string, table: string): Promise<Map<string, string>> {
  const key = `${schema}.${table}`;
  let types = columnTypes.get(key);
  if (!types) {
    const read = relationColumns(db, `${quoteIdent(schema)}.${quoteIdent(table)}`).then(
      (columns) => new Map(columns.map((c) => [c.name, c.type])),
    );
    columnTypes.set(key, (types = read));
    read.catch(() => columnTypes.get(key) === read && columnTypes.delete(key));
  }
  return types;
}

/** The columns every row gives a value (undefined counts as none), or null when the rows differ. */
function uniformColumns(rows: readonly object[]): string[] | null {
  const given = (row: object) => Object.keys(row).filter((k) => (row as Record<string, unknown>)[k] !== undefined);
  const columns = given(rows[0] ?? {});
  const set = new Set(columns);
  for (const row of rows) {
    const keys = given(row);
    if (keys.length !== set.size || !keys.every((k) => set.has(k))) return null;
  }
  return columns;
}

/**
 * Inserts many rows: as one JSON parameter per run of rows (`json_to_recordset`, each column
 * declared with the table's own type), where knex's multi-row insert binds every value as a
 * parameter of its own, which both this process (building and encoding tens of thousands of
 * parameters) and PostgreSQL (parsing them) pay for. A json or jsonb column is read as text and
 * parsed, as knex's insert has it: an object given as its JSON (json_to_recordset's text of a
 * nested value) or a string of JSON text. What JSON can't say as knex does goes through knex's
 * insert: rows whose columns differ (knex sends a missing one as DEFAULT), and a run with a
 * number JSON has no word for (NaN, ±Infinity: knex sends them as such, JSON as null).
 */
export async function insertRows(
  trx: Knex | Knex.Transaction,
  schema: string,
  table: string,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  if (rows.length === 0) return;
  const viaKnex = async (some: readonly Record<string, unknown>[]) => {
    for (const chunk of bindableRuns(some)) await trx.withSchema(schema).table(table).insert(chunk);
  };
  const columns = uniformColumns(rows);
  const types = columns && (await typesOf(trx, schema, table));
  if (!columns || !types || columns.some((c) => !types.has(c))) return viaKnex(rows);
  const isJson = (c: string) => /^jsonb?$/.test(types.get(c)!);
  const declared = columns.map((c) => `${quoteIdent(c)} ${isJson(c) ? 'text' : types.get(c)}`).join(', ');
  const selected = columns
    .map((c) => (isJson(c) ? `x.${quoteIdent(c)}::${types.get(c)}` : `x.${quoteIdent(c)}`))
    .join(', ');
  const sql = `insert into ${quoteIdent(schema)}.${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')})
    select ${selected} from json_to_recordset(?::json) as x(${declared})`;
  const json = (row: object, run: { unsayable: boolean }) =>
    JSON.stringify(row, (_, v: unknown) => {
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'number' && !Number.isFinite(v)) run.unsayable = true;
      return v;
    });
  for (let i = 0; i < rows.length;) {
    const start = i;
    const run = { texts: [] as string[], bytes: 0, unsayable: false };
    for (; i < rows.length && run.texts.length < JSON_RUN_ROWS && (i === start || run.bytes < JSON_RUN_BYTES); i++) {
      const text = json(rows[i]!, run);
      run.texts.push(text);
      run.bytes += text.length;
    }
    if (run.unsayable) await viaKnex(rows.slice(start, i));
    else await trx.raw(sql, [`[${run.texts.join(',')}]`]);
  }
}
