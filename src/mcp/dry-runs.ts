import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DomainError } from '../domain/shared/errors.js';

// Spec 8 "Dry runs: 30 per 60 seconds, 1 at a time", per caller (the MCP user; on the demo, each
// visitor apart, as the call limits: docs/decisions/130-demo-throttle-per-caller.md), held in Redis
// under the service's key prefix so every api process sees the same count and the same running
// run. One script takes both at once: a busy caller's call is refused without spending a slot,
// and two calls racing for the last slot cannot both get it. Redis' clock is the one clock.

export interface DryRunGate {
  redis: Redis;
  /** the service's Redis key prefix (REDIS_PREFIX) */
  prefix: string;
  /** runs a caller may start per 60 seconds (default DRY_RUN_LIMIT.runs, spec 8) */
  runsPerMinute?: number;
}

export const DRY_RUN_LIMIT = { runs: 30, windowMs: 60_000 } as const;
/** Demo visitors' runs at once, all of them together (every api process): no more than two runners. */
export const DEMO_DRY_RUNS_AT_ONCE = 2;
/** Frees a caller whose process died mid-run: past the sandbox's 5 s deadline, its 2 s grace and admission. */
const BUSY_MS = 30_000;

// KEYS: the caller's running mark, the caller's starts, the user's runs in flight (all callers)
const ENTER = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local busy = redis.call('PTTL', KEYS[1])
if busy ~= -2 then return {'busy', busy} end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[5]) then
  local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  return {'full', tonumber(first[2]) - now}
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'rate_limited', tonumber(oldest[2]) + tonumber(ARGV[3]) - now}
end
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return {'ok', 0}`;

const LEAVE = `redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Takes the caller's dry-run slot and marks them running, or refuses with `busy` (one of theirs
 * is running, or on the demo every visitors' slot is taken) or `rate_limited` (30 started in the
 * last 60 s). `caller`: the demo visitor (throttle.ts' demoCaller), counted apart from the others.
 * Call the answer when the run ends.
 */
export async function enterDryRun(
  gate: DryRunGate,
  who: { userId: string; caller?: string | undefined },
): Promise<() => Promise<void>> {
  const caller = who.caller === undefined ? who.userId : `${who.userId}:${who.caller}`;
  const busyKey = `${gate.prefix}:dry-run:busy:${caller}`;
  const runningKey = `${gate.prefix}:dry-run:running:${who.userId}`;
  const token = randomUUID();
  const [outcome, ms] = (await gate.redis.eval(
    ENTER,
    3,
    busyKey,
    `${gate.prefix}:dry-run:starts:${caller}`,
    runningKey,
    token,
    BUSY_MS,
    DRY_RUN_LIMIT.windowMs,
    gate.runsPerMinute ?? DRY_RUN_LIMIT.runs,
    who.caller === undefined ? 1 : DEMO_DRY_RUNS_AT_ONCE,
  )) as [string, number];
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  const runs = gate.runsPerMinute ?? DRY_RUN_LIMIT.runs;
  if (outcome === 'busy')
    throw new DomainError('busy', 'another run_automation call of yours is still running; retry when it has answered', {
      retry_after_seconds: 1,
    });
  if (outcome === 'full')
    throw new DomainError(
      'busy',
      `the demo's ${DEMO_DRY_RUNS_AT_ONCE} dry runs at once are all taken by other visitors; retry in a second`,
      { retry_after_seconds: 1 },
    );
  if (outcome === 'rate_limited')
    throw new DomainError(
      'rate_limited',
      `${runs} dry runs per ${DRY_RUN_LIMIT.windowMs / 1000} seconds: retry in ${seconds} seconds`,
      { retry_after_seconds: seconds },
    );
  return async () => {
    await gate.redis.eval(LEAVE, 2, busyKey, runningKey, token);
  };
}
