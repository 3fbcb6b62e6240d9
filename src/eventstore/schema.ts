import type { Knex } from 'knex';

/** The channel a statement-level trigger notifies after every insert into `events`. */
export const EVENTS_APPENDED_CHANNEL = 'events_appended';

/**
 * Creates the PostgreSQL event store's table (idempotent). Readers of the global log order
 * by (transaction_id, global_position) and read only transactions below the snapshot's xmin,
 * so the index is on that pair. NOTIFY is delivered at commit, so the trigger's wake-up never
 * reaches a listener before the events are committed.
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
  await db.raw('create index if not exists events_transaction_id_global_position_idx on events (transaction_id, global_position)');
  await db.raw(`
    create or replace function events_notify_appended() returns trigger language plpgsql as $$
    begin
      perform pg_notify('${EVENTS_APPENDED_CHANNEL}', '');
      return null;
    end $$`);
  await db.raw(`
    create or replace trigger events_notify_appended after insert on events
    for each statement execute function events_notify_appended()`);
}
