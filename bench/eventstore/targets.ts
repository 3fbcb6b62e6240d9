import { randomUUID } from 'node:crypto';
import { PostgresEventStore } from '../../src/eventstore/postgres.js';
import { NO_STREAM, type ExpectedRevision, type Position } from '../../src/eventstore/port.js';

/** One event of the workload: the same payload for every store. */
export interface BenchEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

export const BENCH_EVENT_TYPES = ['ListingPriceChanged', 'OrderLineObserved', 'StockLevelObserved'] as const;

export function benchEvent(writer: number, n: number): BenchEvent {
  return {
    id: randomUUID(),
    type: BENCH_EVENT_TYPES[n % BENCH_EVENT_TYPES.length]!,
    data: {
      sku: `SKU-${writer}-${n % 997}`,
      quantity: n % 7,
      price: { amount: '19.99', currency: 'EUR' },
      marketplace: 'A1PM8O3M2Q9T1B',
    },
    metadata: {
      correlation_id: randomUUID(),
      actor: { kind: 'worker', id: `bench-${writer}` },
      at: new Date().toISOString(),
    },
  };
}

/**
 * What the bench needs from a store: appends with an exact expected revision (the store
 * tracks each stream's revision from its own append results), and a global-log reader
 * that returns one page of event ids per call from its own cursor.
 */
export interface BenchTarget {
  readonly name: string;
  append(stream: string, events: BenchEvent[]): Promise<void>;
  nextPage(): Promise<string[]>;
  close(): Promise<void>;
}

export const READ_PAGE = 1000;

export function ourTarget(url: string): BenchTarget & { store: PostgresEventStore } {
  const store = new PostgresEventStore(url, { poolSize: 10 });
  const revisions = new Map<string, ExpectedRevision>();
  let cursor: Position | null = null;
  return {
    name: 'ours',
    store,
    async append(stream, events) {
      const result = await store.appendToStream(stream, events, {
        expectedRevision: revisions.get(stream) ?? NO_STREAM,
      });
      revisions.set(stream, result.nextExpectedRevision);
    },
    async nextPage() {
      const page = await store.readAll({ after: cursor, limit: READ_PAGE });
      if (page.length > 0) cursor = page[page.length - 1]!.position;
      return page.map((e) => e.id);
    },
    close: () => store.close(),
  };
}

/**
 * Emmett's PostgreSQL event store through its public API: `appendToStream` with
 * `expectedStreamVersion`, and `readMessagesBatch` paged by its `currentGlobalPosition`, the
 * way its own batch puller pages. Loaded lazily: importing Emmett's driver (dumbo) changes
 * node-postgres' global type parsers (int8 to BigInt, its own JSON parser) for the process.
 */
export async function emmettTarget(url: string): Promise<BenchTarget> {
  const { dumbo } = await import('@event-driven-io/dumbo');
  const { getPostgreSQLEventStore, readMessagesBatch } = await import('@event-driven-io/emmett-postgresql');
  const pool = dumbo({ connectionString: url });
  const store = getPostgreSQLEventStore(url, { connectionOptions: { dumbo: pool } });
  await store.schema.migrate();
  const versions = new Map<string, bigint>();
  let after = 0n;
  return {
    name: 'emmett',
    async append(stream, events) {
      const result = await store.appendToStream(
        stream,
        events.map((e) => ({ type: e.type, data: e.data, metadata: { ...e.metadata, messageId: e.id } })),
        { expectedStreamVersion: versions.get(stream) ?? 0n },
      );
      versions.set(stream, result.nextExpectedStreamVersion);
    },
    async nextPage() {
      const batch = await readMessagesBatch(pool.execute, { after, batchSize: READ_PAGE });
      after = batch.currentGlobalPosition;
      return batch.messages.map((m) => String(m.metadata.messageId));
    },
    async close() {
      await store.close();
      await pool.close();
    },
  };
}
