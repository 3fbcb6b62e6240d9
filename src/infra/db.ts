import { createHash } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

export type { Knex };

// bigint (int8) columns come back as strings by default; we keep them as strings for
// positions (they can exceed 2^53) and convert where a number is meant.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => v);

/** `log`: where knex's own warnings go (by default console.log, which is stdout). */
export function createDb(connectionString: string, pool = { min: 0, max: 10 }, log?: Knex.Logger): Knex {
  return knexFactory({ client: 'pg', connection: connectionString, pool, ...(log ? { log } : {}) });
}

/** Built anew for a retry: a knex query can run once. */
type Query = () => Knex.QueryBuilder | Knex.Raw;

// Statement names by SQL text, and how many times each was renewed after a table changed under it.
const statementNames = new Map<string, string>();
/** Past this many texts a caller is building SQL that varies: its queries run unnamed. */
const MAX_STATEMENTS = 2_000;

const nameFor = (sql: string, renew = false): string | undefined => {
  let name = statementNames.get(sql);
  if (name && !renew) return name;
  if (!name && statementNames.size >= MAX_STATEMENTS) return undefined;
  const generation = name ? Number(name.split('_')[1]) + 1 : 0;
  name = `q${createHash('sha1').update(sql).digest('hex').slice(0, 24)}_${generation}`;
  statementNames.set(sql, name);
  return name;
};

/** A cached plan whose table was rebuilt with other columns (a projection's swap): prepared again under a new name. */
const isStalePlan = (err: unknown): boolean => {
  const e = err as { code?: string; routine?: string };
  return e.code === '0A000' && e.routine === 'RevalidateCachedQuery';
};

/**
 * Runs a hot lookup as a named prepared statement: knex sends unnamed statements, which
 * PostgreSQL parses and plans on every call (in a live run, planning took longer than executing
 * the context lookups). Named after its SQL text, each connection parses it once and PostgreSQL
 * settles on a generic plan after five calls where that one costs no more, so only fixed-shape
 * lookups whose generic plan is as good as a custom one go through here (docs/decisions/004-prepared-statements.md
 * names the one left out). In a transaction a stale plan aborts it: the error is the first one's.
 */
export async function prepared<T>(query: Query): Promise<T> {
  const first = query();
  const { sql } = first.toSQL();
  const named = (q: Knex.QueryBuilder | Knex.Raw, name: string | undefined) =>
    (name ? q.options({ name }) : q) as unknown as Promise<T>;
  try {
    return await named(first, nameFor(sql));
  } catch (err) {
    if (!isStalePlan(err)) throw err;
    // prepared anew; in a transaction the error aborted it and the retry can't run there (25P02)
    return named(query(), nameFor(sql, true)).catch((retry: unknown) => {
      throw (retry as { code?: string }).code === '25P02' ? err : retry;
    });
  }
}

/**
 * Several reads as one statement: each query's rows come back as a JSON array under its key
 * (`select (select coalesce(json_agg(r), '[]') from (<query>) r) as <key>, …`). Each statement a
 * live run sends costs a round trip and the server's work per statement; the small lookups a run
 * makes side by side cost one taken together. Rows cross as JSON: text, booleans, integers and
 * json(b) arrive as they are, timestamps as ISO strings and numeric as numbers, so a caller
 * reading those converts them. A query's own `order by` holds (json_agg takes the rows of a
 * sorted subquery in its order). Named as `prepared` names a lookup: give it fixed-shape reads.
 */
export async function readTogether<T extends Record<string, Knex.QueryBuilder | Knex.Raw>>(
  db: Knex,
  reads: () => T,
): Promise<{ [K in keyof T]: unknown[] }> {
  const query = () => {
    const built = Object.entries(reads());
    return db.raw(
      `select ${built.map(() => `(select coalesce(json_agg(r), '[]'::json) from (?) r) as ??`).join(', ')}`,
      built.flatMap(([key, read]) => [read, key]),
    );
  };
  const { rows } = await prepared<{ rows: Array<{ [K in keyof T]: unknown[] }> }>(query);
  return rows[0]!;
}
