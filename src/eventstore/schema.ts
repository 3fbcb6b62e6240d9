import type { Knex } from 'knex';

/**
 * The channel the PostgreSQL adapter notifies after its appends commit. Not from a trigger:
 * a transaction that has issued NOTIFY holds a cluster-wide lock through its commit's WAL
 * flush, so notifying inside every append serializes all appends' commits (measured here:
 * half the single-event append rate with 8 writers). The adapter notifies from a separate,
 * asynchronously committed transaction instead, coalescing bursts.
 */
export const EVENTS_APPENDED_CHANNEL = 'events_appended';

/**
 * Creates the PostgreSQL event store's table (idempotent). Readers of the global log order
 * by (transaction_id, global_position) and read only transactions below the snapshot's xmin,
 * so the index is on that pair.
 */
export async function migrateEventStore(db: Knex | Knex.Transaction): Promise<void> {
  await db.raw(`
    create table if not exists events (
      global_position bigserial primary key,
      transaction_id xid8 not null default pg_current_xact_id(),
      event_id uuid not null unique,
      stream_id text not null,
      stream_revision bigint not null,
      type text not null,
      data jsonb not null,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      unique (stream_id, stream_revision)
    )`);
  await db.raw(
    'create index if not exists events_transaction_id_global_position_idx on events (transaction_id, global_position)',
  );
  // Databases migrated by the first cut notified from a trigger (see above).
  await db.raw('drop trigger if exists events_notify_appended on events');
  await db.raw('drop function if exists events_notify_appended()');
}
