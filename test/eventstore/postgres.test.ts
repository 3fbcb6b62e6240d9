import { createDb } from '../../src/infra/db.js';
import { PostgresEventStore } from '../../src/eventstore/postgres.js';
import { migrateEventStore } from '../../src/eventstore/schema.js';
import { eventStoreContract } from './contract.js';

describe('event store contract: PostgreSQL adapter', () => {
  eventStoreContract(async () => {
    const url = process.env.DATABASE_URL!;
    const db = createDb(url);
    try {
      // twice: the migration is idempotent
      await migrateEventStore(db);
      await migrateEventStore(db);
    } finally {
      await db.destroy();
    }
    return new PostgresEventStore(url, { pollIntervalMs: 50 });
  });
});
