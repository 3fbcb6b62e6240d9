import { EsdbEventStore } from './esdb.js';
import type { EventStore } from './port.js';
import { PostgresEventStore, type PostgresEventStoreOptions } from './postgres.js';

export * from './port.js';
export { migrateEventStore } from './schema.js';

/** EventStoreDB when `EVENTSTORE_URL` is set, otherwise the `events` table in `DATABASE_URL`. */
export function createEventStore(
  config: { DATABASE_URL: string; EVENTSTORE_URL?: string | undefined },
  options: PostgresEventStoreOptions = {},
): EventStore {
  if (config.EVENTSTORE_URL) return new EsdbEventStore(config.EVENTSTORE_URL);
  return new PostgresEventStore(config.DATABASE_URL, options);
}
