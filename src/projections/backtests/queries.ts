import type { Knex } from '../../infra/db.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { BACKTESTS_TABLE } from './projection.js';

/** Backtests that ended (or, never ending, were requested) before `before`, oldest first. */
export async function expiredBacktests(db: Knex, before: Date, limit: number): Promise<string[]> {
  const rows: { backtest_id: string }[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table(BACKTESTS_TABLE)
    .where('kept_from', '<', before)
    .orderBy('kept_from')
    .limit(limit)
    .select('backtest_id');
  return rows.map((r) => r.backtest_id);
}

export async function deleteBacktestRows(db: Knex, ids: readonly string[]): Promise<void> {
  if (ids.length > 0)
    await db.withSchema(READ_MODEL_SCHEMA).table(BACKTESTS_TABLE).whereIn('backtest_id', ids).delete();
}
