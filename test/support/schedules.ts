import type { Redis } from 'ioredis';
import { connectionsQueue } from '../../src/workers/connections-queue.js';
import { eventRetentionQueue } from '../../src/workers/events/retention-queue.js';
import type { ScheduleQueues } from '../../src/workers/schedules.js';
import { syncQueue } from '../../src/workers/sync/queue.js';

/** The queues whose job schedulers the schedule keeper looks after, on a test's Redis prefix. */
export const scheduleQueues = (redis: Redis, prefix: string): ScheduleQueues => ({
  connections: connectionsQueue(redis, prefix),
  data: syncQueue(redis, prefix),
  retention: eventRetentionQueue(redis, prefix),
});

/** The keys of every job scheduler in those queues, sorted. */
export async function schedulerKeys(queues: ScheduleQueues): Promise<string[]> {
  const all = await Promise.all(
    Object.values(queues).map((q: ScheduleQueues['retention']) => q.getJobSchedulers(0, -1)),
  );
  return all
    .flat()
    .map((s) => s.key)
    .sort();
}
