import type pg from 'pg';
import type { Knex } from 'knex';
import { QUERY_ROLE, VIEWS_SCHEMA } from './migrate.js';
import { ROLLUPS_SCHEMA } from './rollup-rewrite.js';

// The second wall of query_data: whatever the parser let through runs in a READ ONLY
// transaction, under a statement timeout, as a role that can read only the views, with
// the caller's accounts in `app.account_ids` (the views filter on it). Statements go
// straight to the pg connection: knex would rewrite every `?` (a jsonb operator) as a
// binding.

export const STATEMENT_TIMEOUT_MS = 3000;
// Measured on the SKU rollup (99,941 groups, three text keys): hashed in memory (16-64MB) it took
// 90-100 ms, spilled in batches that fit the CPU's caches (4-8MB) 75-77 ms; sorting instead, 130 ms.
const QUERY_WORK_MEM = '8MB';

export interface ResultColumn {
  name: string;
  /** the PostgreSQL type as format_type prints it */
  type: string;
  /** type oid, for converting text values */
  oid: number;
}

export interface ResultSet {
  columns: ResultColumn[];
  /** every value in PostgreSQL's text form (UTC, ISO dates), null for SQL NULL */
  rows: Array<Array<string | null>>;
}

export type RunInQueryRole = (sql: string, values?: unknown[]) => Promise<ResultSet>;

type PoolClient = { acquireConnection(): Promise<pg.Client>; releaseConnection(c: pg.Client): Promise<void> };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Every value stays text: dates are not shifted into the process's time zone, and big
// numbers keep their digits.
const TEXT_TYPES = { getTypeParser: () => (value: string) => value };

/** The views and rollup views that exist as a query-role transaction begins. */
export interface VisibleViews {
  views: ReadonlySet<string>;
  rollups: ReadonlySet<string>;
}

// Listed in the round trip that opens the transaction: migrations create and drop views, so they
// are not kept between calls.
const LIST_VIEWS = `select n.nspname, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname in ('${VIEWS_SCHEMA}', '${ROLLUPS_SCHEMA}') and c.relkind = 'v'`;

export interface QueryRoleOptions {
  timeoutMs?: number;
  /** ends a phase of the caller's time (mcp/phases.ts) */
  lap?: (phase: string) => void;
}

/**
 * Runs `fn` in one READ ONLY transaction as the query role, seeing only `accountIds`' rows.
 * `fn` may run several statements (each under the timeout); the transaction always ends
 * in a rollback, so nothing it did can last.
 */
export async function withQueryRole<T>(
  db: Knex,
  accountIds: readonly string[],
  fn: (run: RunInQueryRole, visible: VisibleViews) => Promise<T>,
  { timeoutMs = STATEMENT_TIMEOUT_MS, lap }: QueryRoleOptions = {},
): Promise<T> {
  for (const id of accountIds) if (!UUID.test(id)) throw new Error(`not an account id: ${id}`);
  const pool = db.client as PoolClient;
  const conn = await pool.acquireConnection();
  try {
    // One round trip; the values are ours (checked uuids, a number, names).
    const opened = (await conn.query(
      [
        'begin transaction read only',
        `set local statement_timeout = ${Math.trunc(timeoutMs)}`,
        `set local work_mem = '${QUERY_WORK_MEM}'`,
        `set local search_path = ${VIEWS_SCHEMA}`,
        `set local timezone = 'UTC'`,
        `set local datestyle = 'ISO, YMD'`,
        `set local app.account_ids = '{${accountIds.join(',')}}'`,
        LIST_VIEWS,
        `set local role ${QUERY_ROLE}`,
      ].join('; '),
    )) as unknown as Array<pg.QueryResult<{ nspname: string; relname: string }>>;
    const listed = opened.find((r) => r.command === 'SELECT')!.rows;
    const named = (schema: string) => new Set(listed.filter((r) => r.nspname === schema).map((r) => r.relname));
    lap?.('transaction opened');
    return await fn((sql, values) => runOne(conn, sql, values, lap), {
      views: named(VIEWS_SCHEMA),
      rollups: named(ROLLUPS_SCHEMA),
    });
  } finally {
    // The answer does not wait for the rollback; the connection goes back once it has rolled back.
    void conn
      .query('rollback')
      .catch((err: unknown) => {
        // a connection that can't even roll back is not handed to anyone else
        (conn as unknown as { __knex__disposed: unknown }).__knex__disposed = err;
      })
      .finally(() => pool.releaseConnection(conn));
  }
}

// format_type of built-in types (oids below 16384, FirstNormalObjectId), which never change.
const BUILT_IN_OIDS = 16384;
const builtInTypes = new Map<string, string>();
const typeKey = (f: pg.FieldDef) => `${f.dataTypeID}/${f.dataTypeModifier}`;

async function runOne(
  conn: pg.Client,
  sql: string,
  values: unknown[] = [],
  lap?: (phase: string) => void,
): Promise<ResultSet> {
  const result = await conn.query({ text: sql, values, rowMode: 'array', types: TEXT_TYPES });
  lap?.('statement');
  const fields = result.fields;
  const known = fields.map((f) => builtInTypes.get(typeKey(f)));
  if (known.some((t) => t === undefined)) {
    const { rows } = await conn.query<{ type: string }>({
      text: 'select format_type(t.oid, nullif(t.mod, -1)) as type from unnest($1::oid[], $2::int[]) with ordinality t(oid, mod, i) order by t.i',
      values: [fields.map((f) => f.dataTypeID), fields.map((f) => f.dataTypeModifier)],
    });
    fields.forEach((f, i) => {
      known[i] = rows[i]!.type;
      if (f.dataTypeID < BUILT_IN_OIDS) builtInTypes.set(typeKey(f), rows[i]!.type);
    });
    lap?.('column types');
  }
  return {
    columns: fields.map((f, i) => ({ name: f.name, type: known[i]!, oid: f.dataTypeID })),
    rows: result.rows as Array<Array<string | null>>,
  };
}
