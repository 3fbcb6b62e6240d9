import { isIPv4 } from 'node:net';
import type { Knex } from '../infra/db.js';
import { DomainError } from '../domain/shared/errors.js';
import { QUERY_DATA_SCHEMA } from '../projections/views/migrate.js';

// Spec 8's per-user call limits as sliding windows: one row per call in PostgreSQL (the api role
// has it wherever it runs; Redis is not a record), the user's rows of that kind counted under a
// per-user, per-kind lock so that concurrent calls can't both take the last slot. On the demo,
// where every visitor is the demo user, each visitor (client address) has windows of its own
// (docs/decisions/130-demo-throttle-per-caller.md).

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

/**
 * The demo visitor an address stands for: an IPv4 address as it is (an IPv4-mapped IPv6 one as
 * its IPv4), an IPv6 address by its /64, the block one host is handed and can pick any address of.
 */
export function demoCaller(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Records a call, or refuses it saying when the oldest call in the window leaves it. */
export async function takeCallSlot(
  db: Knex,
  who: { userId: string; caller?: string | undefined },
  limit: CallLimit,
): Promise<void> {
  const { kind } = limit;
  const caller = who.caller ?? '';
  const mine = { user_id: who.userId, caller, kind };
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?), hashtext(?))', [kind, `${who.userId} ${caller}`]);
    const window = trx.raw('now() - make_interval(secs => ?)', [limit.windowSeconds]);
    await trx(TABLE).where(mine).where('at', '<=', window).delete();
    const { rows } = await trx.raw(
      `select count(*)::int as calls, ceil(extract(epoch from min(at) + make_interval(secs => ?) - now()))::int as wait from ${TABLE} where user_id = ? and caller = ? and kind = ?`,
      [limit.windowSeconds, who.userId, caller, kind],
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
    await trx(TABLE).insert({ ...mine, at: trx.fn.now() });
  });
}
