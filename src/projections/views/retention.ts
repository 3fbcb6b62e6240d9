import type { Knex } from '../../infra/db.js';
import { QUERY_DATA_SCHEMA } from './migrate.js';

// Retention of MCP tool-call records kept in PostgreSQL (spec 8: a month from the call): the
// per-user call log the throttles count (each caller's own calls trim theirs past the window, so
// only a caller who stopped calling leaves rows), and query_data exports past their expiry (a
// later export trims them too). Neither comes from the event log: nothing to rebuild.

/** Deletes call-log rows from before `before` and exports expired at `now`; how many rows went. */
export async function pruneCallRecords(db: Knex, before: Date, now: Date): Promise<number> {
  const calls = await db.withSchema(QUERY_DATA_SCHEMA).table('calls').where('at', '<', before).delete();
  const exports = await db.withSchema(QUERY_DATA_SCHEMA).table('exports').where('expires_at', '<=', now).delete();
  return calls + exports;
}
