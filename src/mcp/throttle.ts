import type { Knex } from '../infra/db.js';
import { DomainError } from '../domain/shared/errors.js';
import { QUERY_DATA_SCHEMA } from '../projections/views/migrate.js';

// Spec 8's per-user call limits as sliding windows: one row per call in PostgreSQL (the api role
// has it wherever it runs; Redis is not a record), the user's rows of that kind counted under a
// per-user, per-kind lock so that concurrent calls can't both take the last slot.

export interface CallLimit {
  /** what is counted: rows of one kind count only against that kind's limit */
  kind: string;
  calls: number;
  windowSeconds: number;
  /** the spec's code for a refusal */
  refusal: 'throttled' | 'rate_limited';
  /** the calls counted, as the refusal names them */
  what: string;
}

export const QUERY_LIMIT = {
  kind: 'query_data',
  calls: 300,
  windowSeconds: 3600,
  refusal: 'throttled',
  what: 'query_data calls',
} as const satisfies CallLimit;

export const ACTIVATION_LIMIT = {
  kind: 'activation',
  calls: 20,
  windowSeconds: 60,
  refusal: 'rate_limited',
  what: 'automation activations',
} as const satisfies CallLimit;

const TABLE = `${QUERY_DATA_SCHEMA}.calls`;

/** Records a call, or refuses it saying when the oldest call in the window leaves it. */
export async function takeCallSlot(db: Knex, userId: string, limit: CallLimit): Promise<void> {
  const { kind } = limit;
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?), hashtext(?))', [kind, userId]);
    const window = trx.raw('now() - make_interval(secs => ?)', [limit.windowSeconds]);
    await trx(TABLE).where({ user_id: userId, kind }).where('at', '<=', window).delete();
    const { rows } = await trx.raw(
      `select count(*)::int as calls, ceil(extract(epoch from min(at) + make_interval(secs => ?) - now()))::int as wait from ${TABLE} where user_id = ? and kind = ?`,
      [limit.windowSeconds, userId, kind],
    );
    const { calls, wait } = rows[0] as { calls: number; wait: number | null };
    if (calls >= limit.calls) {
      const seconds = Math.max(1, wait ?? 1);
      throw new DomainError(
        limit.refusal,
        `${limit.calls} ${limit.what} per ${limit.windowSeconds} seconds: retry in ${seconds} seconds`,
        { retry_after_seconds: seconds },
      );
    }
    await trx(TABLE).insert({ user_id: userId, kind, at: trx.fn.now() });
  });
}
