import { Redis } from 'ioredis';

/** BullMQ needs `maxRetriesPerRequest: null` on the connections its workers use. */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

/**
 * A connection that only adds jobs for a caller who is waiting: while Redis is away its commands
 * fail at once instead of waiting in ioredis' offline queue (BullMQ's "failing fast" pattern).
 */
export function createProducerRedis(url: string): Redis {
  return new Redis(url, { enableOfflineQueue: false });
}

/** Deletes every key matching `pattern` (a run's queue prefix, say), a page at a time. */
export async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
