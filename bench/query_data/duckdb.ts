import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Knex } from 'knex';
import { withQueryRole } from '../../src/projections/views/run.js';

// The side-by-side peer of the query_data bench: DuckDB (in process, on the bench's cores)
// holding the very rows v_sales_lines shows the accounts, with the view's column types, so
// the same SQL text runs on both.

const COLUMNS: Array<[string, string]> = [
  ['account_id', 'uuid'],
  ['order_id', 'uuid'],
  ['amazon_order_id', 'varchar'],
  ['sold_at', 'timestamptz'],
  ['order_status', 'varchar'],
  ['is_business_order', 'boolean'],
  ['marketplace_id', 'varchar'],
  ['currency', 'varchar'],
  ['asin', 'varchar'],
  ['sku', 'varchar'],
  ['title', 'varchar'],
  ['price', 'integer'],
  ['quantity', 'integer'],
];
const BATCH = 50_000;

export interface DuckPeer {
  connection: DuckDBConnection;
  rows: number;
  close(): void;
}

/** Copies v_sales_lines as `accountIds` see it into an in-memory DuckDB table of the same name. */
export async function loadDuckPeer(db: Knex, accountIds: readonly string[]): Promise<DuckPeer> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`set TimeZone = 'UTC'`);
  await connection.run(`create table staging (${COLUMNS.map(([c]) => `${c} varchar`).join(', ')})`);
  const appender = await connection.createAppender('staging');
  let rows = 0;
  // a cursor in the query role's read-only transaction: the rows in batches, as text
  await withQueryRole(
    db,
    accountIds,
    async (run) => {
      await run(`declare lines no scroll cursor for select ${COLUMNS.map(([c]) => c).join(', ')} from v_sales_lines`);
      for (;;) {
        const batch = await run(`fetch ${BATCH} from lines`);
        for (const row of batch.rows) {
          for (const value of row) {
            if (value === null) appender.appendNull();
            else appender.appendVarchar(value);
          }
          appender.endRow();
        }
        rows += batch.rows.length;
        if (batch.rows.length < BATCH) break;
      }
    },
    { timeoutMs: 600_000 },
  );
  appender.closeSync();
  const cast = (c: string, type: string) =>
    type === 'boolean' ? `(${c} = 't') as ${c}` : `cast(${c} as ${type}) as ${c}`;
  await connection.run(
    `create table v_sales_lines as select ${COLUMNS.map(([c, t]) => cast(c, t)).join(', ')} from staging`,
  );
  await connection.run('drop table staging');
  return {
    connection,
    rows,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
