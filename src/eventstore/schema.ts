import type { Knex } from 'knex';

/**
 * The channel the PostgreSQL adapter notifies after its appends commit. Not from a trigger:
 * a transaction that has issued NOTIFY holds a cluster-wide lock through its commit's WAL
 * flush, so notifying inside every append serializes all appends' commits (measured here:
 * half the single-event append rate with 8 writers). The adapter notifies from a separate,
 * asynchronously committed transaction instead, coalescing bursts.
 */
export const EVENTS_APPENDED_CHANNEL = 'events_appended';

/** The advisory lock (two-key form) every transaction that writes events holds, shared. */
const APPENDING_LOCK = [0x65766e74, 1] as const; // 'evnt'

/**
 * Where readers of the global log stop: the oldest transaction that may still add events below
 * it. Transactions whose events a reader's snapshot can't see yet are those in its snapshot's
 * in-progress list; of those, one seen running without the appending lock, and still running
 * after that was seen, took its xid from another write and so never writes events
 * (events_first_write): it doesn't count. So a long projection batch, or any transaction of
 * another database on the server, no longer hides every later append (PostgreSQL's xmin counts
 * them all). A transaction that ended after the snapshot still counts: its events may be
 * invisible to the snapshot.
 */
const HORIZON_SQL = {
  header: 'create or replace function events_horizon() returns xid8 language plpgsql stable as',
  body: `
  declare
    snap pg_snapshot := pg_current_snapshot();
    horizon xid8 := pg_snapshot_xmax(snap);
    quiet xid8[];
    x xid8;
  begin
    -- nothing running: no need to read the lock table (the costly part)
    if not exists (select from pg_snapshot_xip(snap)) then
      return horizon;
    end if;
    -- running, without the appending lock: their xids came from other writes
    select coalesce(array_agg(s.x), '{}') into quiet
    from pg_snapshot_xip(snap) s(x)
    where exists (
      select 1 from pg_locks t
      where t.locktype = 'transactionid' and t.mode = 'ExclusiveLock' and t.granted
        and t.transactionid::text::bigint = s.x::text::bigint % 4294967296
        and not exists (
          select 1 from pg_locks a
          where a.pid = t.pid and a.locktype = 'advisory' and a.granted
            and a.classid = ${APPENDING_LOCK[0]} and a.objid = ${APPENDING_LOCK[1]} and a.objsubid = 2
            and a.database = (select oid from pg_database where datname = current_database())));
    for x in select * from pg_snapshot_xip(snap) loop
      -- still running after the locks were read; one that has ended since may have appended
      -- (a transaction's locks go after it ends, in no fixed order)
      if x < horizon and not (x = any(quiet) and pg_xact_status(x) = 'in progress') then
        horizon := x;
      end if;
    end loop;
    return horizon;
  end `,
};

/** Events are a transaction's first write (so its xid is taken after the lock), or it already appends. */
const FIRST_WRITE_SQL = {
  header: 'create or replace function events_first_write() returns trigger language plpgsql as',
  body: `
  begin
    if pg_current_xact_id_if_assigned() is not null and not exists (
      select 1 from pg_locks where pid = pg_backend_pid() and locktype = 'advisory'
        and classid = ${APPENDING_LOCK[0]} and objid = ${APPENDING_LOCK[1]} and objsubid = 2) then
      raise exception 'events must be the first write of their transaction: readers of the log pass over transactions that wrote something else first';
    end if;
    perform pg_advisory_xact_lock_shared(${APPENDING_LOCK[0]}, ${APPENDING_LOCK[1]});
    return null;
  end `,
};

/**
 * Creates the PostgreSQL event store's table (idempotent). Readers of the global log order
 * by (transaction_id, global_position) and read only transactions below `events_horizon()`,
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
  // Only what is missing or differs: every process migrates at start-up while others append, and
  // a trigger's DDL locks the table against them.
  for (const f of [HORIZON_SQL, FIRST_WRITE_SQL]) {
    const name = /function (\w+)\(/.exec(f.header)![1]!;
    const { rows } = await db.raw('select prosrc from pg_proc where proname = ?', [name]);
    if (rows[0]?.prosrc !== f.body) await db.raw(`${f.header} $$${f.body}$$`);
  }
  const triggers = async (name: string) =>
    (await db.raw("select 1 from pg_trigger where tgrelid = 'events'::regclass and tgname = ?", [name])).rows.length;
  if (!(await triggers('events_appending')))
    await db.raw(
      'create trigger events_appending before insert on events for each statement execute function events_first_write()',
    );
  // Databases migrated by the first cut notified from a trigger (see above).
  if (await triggers('events_notify_appended')) {
    await db.raw('drop trigger events_notify_appended on events');
    await db.raw('drop function if exists events_notify_appended()');
  }
}

/**
 * Compresses events' data with lz4 where the server has it (PostgreSQL 14 and later, built with
 * lz4; pglz, the default, stays otherwise, and events stored before keep theirs). Page JSON is most
 * of the log, and lz4 compresses and expands it in about two thirds of pglz's time at about the
 * same size. Its ALTER locks the table against appends until the migration commits: the
 * migration's last step, once per database.
 */
export async function compressEventData(db: Knex | Knex.Transaction): Promise<void> {
  const { rows: server } = await db.raw(
    `select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`,
  );
  if (!server[0]?.lz4) return;
  const { rows: column } = await db.raw(
    `select attcompression as method from pg_attribute where attrelid = 'events'::regclass and attname = 'data'`,
  );
  if (column[0].method !== 'l') await db.raw('alter table events alter column data set compression lz4');
}
