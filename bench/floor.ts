import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { READ_MODEL_SCHEMA } from '../src/projections/projection.js';

// The floor of a backfill: the rows the sync landed (listings, order lines, economics), read back
// from the read-model tables it filled and loaded with COPY FROM STDIN into scratch tables shaped
// like them (indexes included), timed. No sync of the same rows can land them faster, so the
// sync's time ÷ this is how far the real path is from the bare load. The rows go through a file,
// not memory: the benchmark's process is the service's, and its peak RSS is a figure too.

const TABLES = ['listings', 'order_lines', 'seller_economics'] as const;
const SCRATCH = 'bench_floor';

export interface Floor {
  ms: number;
  tables: Array<{ table: string; rows: number; bytes: number; ms: number }>;
}

export async function measureFloor(url: string): Promise<Floor> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-floor-'));
  try {
    await client.query(`drop schema if exists ${SCRATCH} cascade; create schema ${SCRATCH}`);
    const tables: Floor['tables'] = [];
    for (const table of TABLES) {
      const file = path.join(dir, table);
      await pipeline(
        client.query(copyTo(`copy (select * from ${READ_MODEL_SCHEMA}.${table}) to stdout`)),
        createWriteStream(file),
      );
      // generated and identity columns become plain ones: the copy gives their values
      await client.query(
        `create table ${SCRATCH}.${table} (like ${READ_MODEL_SCHEMA}.${table} including defaults including indexes)`,
      );
      const started = performance.now();
      const load = client.query(copyFrom(`copy ${SCRATCH}.${table} from stdin`));
      await pipeline(createReadStream(file), load);
      tables.push({ table, rows: load.rowCount, bytes: (await stat(file)).size, ms: performance.now() - started });
    }
    return { ms: tables.reduce((sum, t) => sum + t.ms, 0), tables };
  } finally {
    await client.query(`drop schema if exists ${SCRATCH} cascade`).catch(() => {});
    await client.end();
    await rm(dir, { recursive: true, force: true });
  }
}
