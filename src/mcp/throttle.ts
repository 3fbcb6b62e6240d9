import { isIPv4 } from 'node:net';
import type { Knex } from '../infra/db.js';
import { DomainError } from '../domain/shared/errors.js';
import { QUERY_DATA_SCHEMA } from '../projections/views/migrate.js';

// Spec 8's per-user call limits as sliding windows: one row per call in PostgreSQL (the api role
// has it wherever it runs; Redis is not a record), the user's rows of that kind counted under a
// per-user, per-kind lock so that concurrent calls can't both take the last slot, all in one
// function call (one round trip). On the demo, where every visitor is the demo user, each visitor
// (client address) has windows of its own (docs/decisions/130-demo-throttle-per-caller.md).

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

const FUNCTION = `${QUERY_DATA_SCHEMA}.take_call_slot`;

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
  // one round trip: the function (views/migrate.ts) locks, trims, counts and records
  const { rows } = await db.raw(`select ${FUNCTION}(?, ?, ?, ?, ?) as wait`, [
    who.userId,
    who.caller ?? '',
    limit.kind,
    limit.calls,
    limit.windowSeconds,
  ]);
  const seconds = (rows[0] as { wait: number | null }).wait;
  if (seconds !== null)
    throw new DomainError(
      limit.refusal,
      `${limit.calls} ${limit.what} per ${limit.windowSeconds} seconds: retry in ${seconds} seconds`,
      { retry_after_seconds: seconds },
    );
}
