import type { Knex } from '../infra/db.js';
import { DomainError } from '../domain/shared/errors.js';
import { QUERY_DATA_SCHEMA } from '../projections/views/migrate.js';

// Spec 8: 300 query_data calls per 3600 seconds per user, as a sliding window: one row
// per call in PostgreSQL, the user's rows counted under a per-user lock so that
// concurrent calls can't both take the last slot.

export const QUERY_LIMIT = { calls: 300, windowSeconds: 3600 } as const;

const TABLE = `${QUERY_DATA_SCHEMA}.calls`;

/** Records a call, or throws `throttled` saying when the oldest call in the window leaves it. */
export async function takeQuerySlot(
  db: Knex,
  userId: string,
  limit: { calls: number; windowSeconds: number } = QUERY_LIMIT,
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?), hashtext(?))', ['query_data', userId]);
    const window = trx.raw('now() - make_interval(secs => ?)', [limit.windowSeconds]);
    await trx(TABLE).where({ user_id: userId }).where('at', '<=', window).delete();
    const { rows } = await trx.raw(
      `select count(*)::int as calls, ceil(extract(epoch from min(at) + make_interval(secs => ?) - now()))::int as wait from ${TABLE} where user_id = ?`,
      [limit.windowSeconds, userId],
    );
    const { calls, wait } = rows[0] as { calls: number; wait: number | null };
    if (calls >= limit.calls) {
      const seconds = Math.max(1, wait ?? 1);
      throw new DomainError(
        'throttled',
        `${limit.calls} query_data calls per ${limit.windowSeconds} seconds: retry in ${seconds} seconds`,
        { retry_after_seconds: seconds },
      );
    }
    await trx(TABLE).insert({ user_id: userId, at: trx.fn.now() });
  });
}
