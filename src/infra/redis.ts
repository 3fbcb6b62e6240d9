import { Redis } from 'ioredis';

/** BullMQ needs `maxRetriesPerRequest: null` on the connections its workers use. */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}
