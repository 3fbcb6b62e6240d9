import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

export type { Knex };

// bigint (int8) columns come back as strings by default; we keep them as strings for
// positions (they can exceed 2^53) and convert where a number is meant.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => v);

export function createDb(connectionString: string, pool = { min: 0, max: 10 }): Knex {
  return knexFactory({ client: 'pg', connection: connectionString, pool });
}
