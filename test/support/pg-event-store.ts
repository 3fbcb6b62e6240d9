import pg from 'pg';
import { createDb } from '../../src/infra/db.js';
import { PostgresEventStore } from '../../src/eventstore/postgres.js';
import { migrateEventStore } from '../../src/eventstore/schema.js';

export interface PgEventStoreFixture {
  url: string;
  store: PostgresEventStore;
  /** a separate connection, e.g. to hold a transaction open while the store appends */
  client: pg.Client;
}

/** Registers before/after hooks giving the suite a migrated PostgreSQL event store. */
export function usePgEventStore(): PgEventStoreFixture {
  const fixture = {} as PgEventStoreFixture;
  before(async () => {
    fixture.url = process.env.DATABASE_URL!;
    const db = createDb(fixture.url);
    await migrateEventStore(db);
    await db.destroy();
    fixture.store = new PostgresEventStore(fixture.url);
    fixture.client = new pg.Client({ connectionString: fixture.url });
    await fixture.client.connect();
  });
  after(async () => {
    await fixture.client?.end();
    await fixture.store?.close();
  });
  return fixture;
}
