import type { Redis } from 'ioredis';

// The shared provider budget of live reads (spec 7 "Live read" `rate_limited`): one bucket per
// provider operation and provider account (the seller or the advertising profile), which is how
// the marketplace counts its quotas, held in Redis so that every user of that seller and every
// api process draws on the same bucket. A generic cell rate algorithm: the key holds the
// theoretical arrival time of the next request; Redis' clock is the one clock. A caller whose
// slot comes within `maxWaitMs` reserves it and waits; a later slot is refused without
// reserving anything, with the wait as retry_after.

export interface Rate {
  /** sustained requests per second */
  perSecond: number;
  /** requests that may go at once after a quiet spell */
  burst: number;
}

export interface Budget {
  redis: Redis;
  /** the service's Redis key prefix (REDIS_PREFIX) */
  prefix: string;
}

const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local tolerance = interval * (tonumber(ARGV[2]) - 1)
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local wait = tat - tolerance - now
if wait > tonumber(ARGV[3]) then return {0, wait} end
if wait < 0 then wait = 0 end
redis.call('SET', KEYS[1], tat + interval, 'PX', math.ceil(tat + interval - now + 1000))
return {1, wait}`;

/** `{ waitMs }`: a slot reserved that many ms ahead; `{ retryAfterMs }`: none within `maxWaitMs`. */
export async function takeSlot(
  budget: Budget,
  bucket: string,
  rate: Rate,
  maxWaitMs: number,
): Promise<{ waitMs: number } | { retryAfterMs: number }> {
  const intervalMs = Math.max(1, Math.round(1000 / rate.perSecond));
  const [granted, ms] = (await budget.redis.eval(
    TAKE,
    1,
    `${budget.prefix}:live-read:budget:${bucket}`,
    intervalMs,
    rate.burst,
    Math.max(0, Math.floor(maxWaitMs)),
  )) as [number, number];
  return granted === 1 ? { waitMs: ms } : { retryAfterMs: ms };
}
