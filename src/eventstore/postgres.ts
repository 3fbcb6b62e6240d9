import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { coalesced } from './coalesce.js';
import {
  callListeners,
  HintedTypes,
  hintListener,
  notifyPayload,
  readNotifyPayload,
  type HintListener,
} from './hints.js';
import {
  NO_STREAM,
  WrongExpectedVersion,
  type AppendOptions,
  type AppendResult,
  type CreateStreamsOptions,
  type DataFilter,
  type EventData,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  filters,
  keepsValue,
  type NewStream,
  type Position,
  type SubscribeOptions,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ReadTypesOptions,
  type StreamAppend,
  type RecordedEvent,
  type TypedRead,
  type Subscription,
} from './port.js';
import { EVENTS_APPENDED_CHANNEL } from './schema.js';
import { pollingSubscription } from './subscription.js';

export interface PostgresEventStoreOptions {
  /** connections in the adapter's pool (LISTEN uses one more) */
  poolSize?: number;
  /** how often a live subscription polls when no wake-up arrives */
  pollIntervalMs?: number;
  /** events per readAll page inside subscribeToAll */
  subscriptionBatchSize?: number;
}

const START: Position = { commit: 0n, prepare: 0n };

// The adapter's statements are prepared once per connection (named): parsing and planning them
// cost PostgreSQL more than running them (measured under the live-runs bench: 45 % of statement
// time was planning), and every append and read pays it otherwise.
const prepared = (name: string, text: string) => (values: unknown[]) => ({ name: `events_${name}`, text, values });
// Reads by a list of positions are planned at each call instead: a generic plan is made once, for
// the table as it was then, and kept until the table's statistics change. One made while the log
// was small joins by a sequential scan and goes on scanning the whole log long after it has grown
// (seen in the live-runs bench: ~750 pages a read where a few primary-key probes do), whereas a
// plan for the actual array (whose length the planner sees) probes the primary key.
const planned = (text: string) => (values: unknown[]) => ({ text, values });
// A losing writer on the same stream retries its statement (ANY and STREAM_EXISTS then
// succeed, NO_STREAM and exact revisions fail the check); each retry means another writer won.
const MAX_APPEND_ATTEMPTS = 50;

// One statement, so one transaction: read the stream's last revision, check the expectation,
// insert the batch after it. Concurrent writers that both pass the check collide on
// unique (stream_id, stream_revision); the loser retries the statement (see appendToStream).
const APPEND = prepared(
  'append',
  `
  with cur as (
    select coalesce(l.stream_revision, -1) as rev, l.global_position, l.transaction_id
    from (values (1)) v
    left join lateral (
      select stream_revision, global_position, transaction_id from events
      where stream_id = $1 order by stream_revision desc limit 1
    ) l on true
  ),
  ok as (
    select rev from cur
    where case $2::text
      when 'any' then true
      when 'no_stream' then rev = -1
      when 'stream_exists' then rev >= 0
      else rev = $3::bigint
    end
  ),
  ins as (
    insert into events (event_id, stream_id, stream_revision, type, data, metadata)
    select (e->>'id')::uuid, $1, ok.rev + t.n, e->>'type', e->'data', e->'metadata'
    from ok, jsonb_array_elements($4::jsonb) with ordinality as t(e, n)
    order by t.n
    returning stream_revision, global_position, transaction_id
  )
  select cur.rev::text as current_revision,
         (select count(*) from ok)::int as accepted,
         coalesce(last.stream_revision, cur.rev)::text as last_revision,
         coalesce(last.global_position, cur.global_position, 0)::text as global_position,
         coalesce(last.transaction_id, cur.transaction_id, '0'::xid8)::text as transaction_id
  from cur
  left join lateral (select * from ins order by stream_revision desc limit 1) last on true`,
);

// appendToStreams: APPEND for several streams in one statement, each with its own expectation;
// one that fails leaves every stream unwritten (`refused`). Concurrent writers collide on the
// unique key as APPEND's do, and the loser retries the statement.
const APPEND_STREAMS = prepared(
  'append_streams',
  `
  with cur as (
    select a->>'stream' as stream_id, a->>'mode' as mode, (a->>'exact')::bigint as exact, a->'events' as events, t.n,
           coalesce(l.stream_revision, -1) as rev, l.global_position, l.transaction_id
    from jsonb_array_elements($1::jsonb) with ordinality as t(a, n)
    left join lateral (
      select stream_revision, global_position, transaction_id from events
      where stream_id = a->>'stream' order by stream_revision desc limit 1
    ) l on true
  ),
  refused as (
    select 1 from cur
    where not case mode
      when 'any' then true
      when 'no_stream' then rev = -1
      when 'stream_exists' then rev >= 0
      else rev = exact
    end
  ),
  ins as (
    insert into events (event_id, stream_id, stream_revision, type, data, metadata)
    select (e->>'id')::uuid, c.stream_id, c.rev + t.m, e->>'type', e->'data', e->'metadata'
    from cur c cross join lateral jsonb_array_elements(c.events) with ordinality as t(e, m)
    where not exists (select 1 from refused)
    order by c.n, t.m
    returning stream_id, stream_revision, global_position, transaction_id
  )
  select (select count(*) from refused)::int as refused,
         coalesce(last.stream_revision, c.rev)::text as last_revision,
         coalesce(last.global_position, c.global_position, 0)::text as global_position,
         coalesce(last.transaction_id, c.transaction_id, '0'::xid8)::text as transaction_id
  from cur c
  left join lateral (
    select * from ins where ins.stream_id = c.stream_id order by stream_revision desc limit 1
  ) last on true
  order by c.n`,
);

// createStreams: each stream's one event at revision 0, in list order; a stream that exists (or
// came earlier in the list) conflicts and is passed over, whoever wrote it first.
const INSERT_STREAMS = `
  insert into events (event_id, stream_id, stream_revision, type, data, metadata)
  select (e->>'id')::uuid, e->>'stream', 0, e->>'type', e->'data', e->'metadata'
  from jsonb_array_elements($1::jsonb) with ordinality as t(e, n)
  order by t.n`;
const RETURNING = 'returning stream_id, global_position, transaction_id::text';
const CREATE_STREAMS = prepared(
  'create_streams',
  `${INSERT_STREAMS} on conflict (stream_id, stream_revision) do nothing ${RETURNING}`,
);
// exclusive: without the conflict clause, a stream that exists fails the statement, so none is written
const CREATE_STREAMS_EXCLUSIVE = prepared('create_streams_exclusive', `${INSERT_STREAMS} ${RETURNING}`);

// Listeners, here and in other processes, hear of an append at most this much later than its
// commit: a burst of appends costs each of them (every projection's loop, every subscription)
// one look at the log, and the database a few NOTIFY transactions, not one per append.
const HINT_EVERY_MS = 5;
// A hint only, so its commit need not wait for the WAL flush (the setting is the statement's own
// transaction's). The payload names the store that appended, so it can pass over its own echo
// (its listeners heard at once), and the types the appends wrote (hints.ts).
const NOTIFY = prepared(
  'notify',
  `select set_config('synchronous_commit', 'off', true), pg_notify('${EVENTS_APPENDED_CHANNEL}', $1)`,
);

// A NOTIFY is for other processes (this one's listeners hear at once), so it is sent only while
// one listens: a LISTEN connection names itself (application_name), and an appender looks for
// another store's at most once every OTHERS_EVERY_MS. A process that starts listening is heard of
// within that time; until then its readers poll, as they do whenever a wake-up is missed.
const LISTENER_NAME = 'events-listener:';
const OTHERS_EVERY_MS = 1_000;
const OTHERS_LISTENING = prepared(
  'others_listening',
  `select exists (select 1 from pg_stat_activity
     where datname = current_database() and application_name like '${LISTENER_NAME}%' and application_name <> $1) as listening`,
);

// xid8 travels as text under its own name: an output column named transaction_id would be
// what ORDER BY transaction_id sorts on, as text ('10003' < '9997').
const COLUMNS =
  'global_position, transaction_id::text as commit_position, event_id, stream_id, stream_revision, type, data, metadata, created_at';

// Only transactions below the oldest one that may still add events are read (events_horizon,
// src/eventstore/schema.ts): every event there is committed (or gone), and no later commit can
// land before the checkpoint pair ($1, $2). Both readers of the global log take at most $3 of them.
const PAST_CHECKPOINT = `from events
  where transaction_id < (select events_horizon())
    and (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
  order by transaction_id, global_position
  limit $3`;

const READ_ALL = prepared(
  'read_all',
  `
  select ${COLUMNS} ${PAST_CHECKPOINT}`,
);

// readAllOfTypes: positions and types first (no payloads), then the wanted rows by primary key.
const SCAN_ALL = prepared(
  'scan_all',
  `
  select transaction_id::text as commit_position, global_position, type ${PAST_CHECKPOINT}`,
);
// A filter's field of each event at these positions: the server loads an event's data to read it,
// but sends only the field, so a reader of one dataset's pages passes over the others' unread.
// The stored size comes from the same read: a page's compressed bytes, not its text's.
const READ_KEYS = planned(
  `select global_position, data -> $2::text as key, pg_column_size(data) as size from unnest($1::bigint[]) p(g) join events on global_position = p.g`,
);
const READ_POSITIONS = planned(
  `select ${COLUMNS} from unnest($1::bigint[]) p(g) join events on global_position = p.g order by transaction_id, global_position`,
);

// readAllOfTypes without a filter, in one statement: every position scanned (as SCAN_ALL), the
// columns of the first $5 of the wanted types filled in, the others' null.
const SCAN_READ = prepared(
  'scan_read',
  `
  with scanned as materialized (
    select transaction_id, global_position, type ${PAST_CHECKPOINT}
  ), wanted as (
    select global_position from scanned where type = any($4::text[]) order by transaction_id, global_position limit $5
  )
  select s.transaction_id::text as commit_position, s.global_position, s.type,
         e.event_id, e.stream_id, e.stream_revision, e.data, e.metadata, e.created_at
  from scanned s
  left join wanted w on w.global_position = s.global_position
  left join events e on e.global_position = w.global_position
  order by s.transaction_id, s.global_position`,
);

/** How many positions readAllOfTypes looks at per wanted event it may return. */
const SCAN_FACTOR = 10;

/** How far a typed read looked: up to its last wanted event when it took all it could (`full`), else to the end of its scan. */
function reach(
  scanned: readonly Scanned[],
  wanted: readonly Scanned[],
  options: ReadTypesOptions,
  full = wanted.length === options.limit,
): Omit<TypedRead, 'events'> {
  const last = full ? wanted[wanted.length - 1] : scanned[scanned.length - 1];
  return {
    through: last
      ? { commit: BigInt(last.commit_position), prepare: BigInt(last.global_position) }
      : (options.after ?? null),
    passed: last ? scanned.indexOf(last) + 1 : 0,
    end: !full && scanned.length < options.limit * SCAN_FACTOR,
  };
}

// Every committed row, including those still hidden from readAll behind an older open transaction.
const HEAD = prepared(
  'head',
  `select transaction_id::text as commit_position, global_position from events order by transaction_id desc, global_position desc limit 1`,
);

const READ_STREAM = prepared(
  'read_stream',
  `
  select ${COLUMNS} from events
  where stream_id = $1 and stream_revision >= $2
  order by stream_revision
  limit $3`,
);

const READ_STREAMS = prepared(
  'read_streams',
  `
  select ${COLUMNS} from events
  where stream_id = any($1::text[])
  order by stream_id, stream_revision`,
);

/** A position of the log as readAllOfTypes scans it, without its payload. */
interface Scanned {
  commit_position: string;
  global_position: string;
  type: string;
}

interface EventRow {
  global_position: string;
  commit_position: string;
  event_id: string;
  stream_id: string;
  stream_revision: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  created_at: Date;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: BigInt(row.stream_revision),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    position: { commit: BigInt(row.commit_position), prepare: BigInt(row.global_position) },
    createdAt: row.created_at,
  };
}

/** An event as the append statements take it (jsonb), its id made here when the caller gave none. */
const eventRow = (e: EventData) => ({
  id: e.id ?? randomUUID(),
  type: e.type,
  data: e.data ?? null,
  metadata: e.metadata ?? {},
});

function expectationParams(expected: ExpectedRevision): [string, string | null] {
  return typeof expected === 'bigint' ? ['exact', expected.toString()] : [expected, null];
}

function isRevisionConflict(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e.code === '23505' && e.constraint === 'events_stream_id_stream_revision_key';
}

export class PostgresEventStore implements EventStore {
  readonly atomicCreation = true;
  private readonly pool: pg.Pool;
  private readonly listeners = new Set<HintListener>();
  private listenClient: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** the NOTIFY in flight, if any, and whether appends committed since it was sent */
  private notifying: Promise<void> | null = null;
  private notifyAgain = false;
  private lastNotify = 0;
  /** whether another store listens for NOTIFYs, and when that was last looked up */
  private others: { listening: boolean; at: number } | null = null;
  /** the types heard of since the listeners were last called, and those appended since the last NOTIFY */
  private readonly heard = new HintedTypes();
  private readonly unannounced = new HintedTypes();
  /** calls the listeners now or, within HINT_EVERY_MS of the last call, once that has passed */
  private readonly hint = coalesced(() => callListeners(this.listeners, this.heard.take()), HINT_EVERY_MS);
  /** names this store's NOTIFYs */
  private readonly id = randomUUID();
  private readonly pollIntervalMs: number;
  private readonly subscriptionBatchSize: number;

  constructor(
    private readonly connectionString: string,
    options: PostgresEventStoreOptions = {},
  ) {
    this.pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10 });
    // An idle client's connection error (server restart) is reported here; the pool drops it.
    this.pool.on('error', () => undefined);
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.subscriptionBatchSize = options.subscriptionBatchSize ?? 500;
  }

  async appendToStream(stream: string, events: EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    const [mode, exact] = expectationParams(expected);
    const payload = JSON.stringify(events.map(eventRow));
    for (let attempt = 1; ; attempt++) {
      let row: {
        current_revision: string;
        accepted: number;
        last_revision: string;
        global_position: string;
        transaction_id: string;
      };
      try {
        const result = await this.pool.query(APPEND([stream, mode, exact, payload]));
        row = result.rows[0];
      } catch (err) {
        if (isRevisionConflict(err) && attempt < MAX_APPEND_ATTEMPTS) continue;
        throw err;
      }
      if (row.accepted === 0) {
        const actual = BigInt(row.current_revision);
        throw new WrongExpectedVersion(stream, expected, actual < 0n ? NO_STREAM : actual);
      }
      if (events.length > 0) this.announce(events.map((e) => e.type));
      return {
        nextExpectedRevision: BigInt(row.last_revision),
        position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) },
      };
    }
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<Array<AppendResult | null>> {
    if (appends.length === 0) return [];
    if (new Set(appends.map((a) => a.stream)).size < appends.length)
      throw new Error('appendToStreams names a stream more than once');
    const payload = JSON.stringify(
      appends.map((a) => {
        const [mode, exact] = expectationParams(a.expectedRevision ?? 'any');
        return { stream: a.stream, mode, exact, events: a.events.map(eventRow) };
      }),
    );
    for (let attempt = 1; ; attempt++) {
      let rows: Array<{ refused: number; last_revision: string; global_position: string; transaction_id: string }>;
      try {
        ({ rows } = await this.pool.query(APPEND_STREAMS([payload])));
      } catch (err) {
        if (isRevisionConflict(err) && attempt < MAX_APPEND_ATTEMPTS) continue;
        throw err;
      }
      if (rows[0]!.refused > 0) return appends.map(() => null);
      const types = appends.flatMap((a) => a.events.map((e) => e.type));
      if (types.length > 0) this.announce(types);
      return rows.map((row) => ({
        nextExpectedRevision: BigInt(row.last_revision),
        position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) },
      }));
    }
  }

  async createStreams(
    streams: readonly NewStream[],
    options: CreateStreamsOptions = {},
  ): Promise<Array<Position | null>> {
    if (streams.length === 0) return [];
    const payload = JSON.stringify(streams.map(({ stream, event }) => ({ stream, ...eventRow(event) })));
    let rows: Array<{ stream_id: string; global_position: string; transaction_id: string }>;
    try {
      ({ rows } = await this.pool.query((options.exclusive ? CREATE_STREAMS_EXCLUSIVE : CREATE_STREAMS)([payload])));
    } catch (err) {
      if (options.exclusive && isRevisionConflict(err)) return streams.map(() => null);
      throw err;
    }
    if (rows.length > 0) this.announce(streams.map((s) => s.event.type));
    const created = new Map(
      rows.map((r) => [r.stream_id, { commit: BigInt(r.transaction_id), prepare: BigInt(r.global_position) }]),
    );
    // the first of a stream named twice is the one created
    return streams.map(({ stream }) => {
      const position = created.get(stream) ?? null;
      created.delete(stream);
      return position;
    });
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<EventRow>(
      READ_STREAM([stream, (options.fromRevision ?? 0n).toString(), options.maxCount ?? null]),
    );
    return rows.map(toRecorded);
  }

  async readStreams(streams: readonly string[]): Promise<RecordedEvent[][]> {
    const { rows } = await this.pool.query<EventRow>(READ_STREAMS([[...new Set(streams)]]));
    const read = new Map<string, RecordedEvent[]>();
    for (const row of rows) {
      const list = read.get(row.stream_id) ?? [];
      list.push(toRecorded(row));
      read.set(row.stream_id, list);
    }
    return streams.map((s) => read.get(s) ?? []);
  }

  async deleteStream(stream: string): Promise<void> {
    await this.pool.query('delete from events where stream_id = $1', [stream]);
  }

  async truncateStream(stream: string, beforeRevision: bigint): Promise<void> {
    await this.pool.query('delete from events where stream_id = $1 and stream_revision < $2', [
      stream,
      beforeRevision.toString(),
    ]);
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const after = options.after ?? START;
    const { rows } = await this.pool.query<EventRow>(
      READ_ALL([after.commit.toString(), after.prepare.toString(), options.limit]),
    );
    return rows.map(toRecorded);
  }

  async readAllOfTypes(options: ReadTypesOptions): Promise<TypedRead> {
    const after = options.after ?? START;
    const { filter } = options;
    const checkpoint = [after.commit.toString(), after.prepare.toString(), options.limit * SCAN_FACTOR];
    if (!filter) {
      const { rows } = await this.pool.query<Scanned & EventRow>(
        SCAN_READ([...checkpoint, [...options.types], options.limit]),
      );
      const wanted = rows.filter((r) => r.event_id !== null);
      return { events: wanted.map(toRecorded), ...reach(rows, wanted, options) };
    }
    const { rows: scanned } = await this.pool.query<Scanned>(SCAN_ALL(checkpoint));
    const types = new Set(options.types);
    const { kept: wanted, full } = await this.kept(
      scanned.filter((r) => types.has(r.type)),
      filter,
      options.limit,
      options.maxBytes ?? Infinity,
    );
    const reached = reach(scanned, wanted, options, full);
    if (wanted.length === 0) return { events: [], ...reached };
    const { rows } = await this.pool.query<EventRow>(READ_POSITIONS([wanted.map((r) => r.global_position)]));
    return { events: rows.map(toRecorded), ...reached };
  }

  /** The candidates the filter keeps, in order, up to `limit` or until their data's stored size reaches
   * `maxBytes` (`full`: one of the two cut the read short): the fields of those of its types are read a
   * chunk of `limit` candidates at a time, so no more than one chunk is read past the last event needed. */
  private async kept(
    candidates: Scanned[],
    filter: DataFilter,
    limit: number,
    maxBytes: number,
  ): Promise<{ kept: Scanned[]; full: boolean }> {
    const kept: Scanned[] = [];
    let bytes = 0;
    for (let i = 0; i < candidates.length; i += limit) {
      const chunk = candidates.slice(i, i + limit);
      const looked = chunk.filter((r) => filters(filter, r.type)).map((r) => r.global_position);
      const { rows } = looked.length
        ? await this.pool.query<{ global_position: string; key: unknown; size: number }>(
            READ_KEYS([looked, filter.field]),
          )
        : { rows: [] };
      const read = new Map(rows.map((r) => [r.global_position, r]));
      for (const r of chunk) {
        const row = read.get(r.global_position);
        if (filters(filter, r.type) && !keepsValue(filter, row?.key)) continue;
        kept.push(r);
        bytes += row?.size ?? 0;
        if (kept.length === limit || bytes >= maxBytes) return { kept, full: true };
      }
    }
    return { kept, full: false };
  }

  async headPosition(): Promise<Position | null> {
    const { rows } = await this.pool.query<{ commit_position: string; global_position: string }>(HEAD([]));
    return rows[0] ? { commit: BigInt(rows[0].commit_position), prepare: BigInt(rows[0].global_position) } : null;
  }

  subscribeToAll(options: SubscribeOptions = {}): Subscription {
    return pollingSubscription(this, {
      after: options.after ?? null,
      ...(options.types ? { types: options.types } : {}),
      batchSize: this.subscriptionBatchSize,
      pollIntervalMs: this.pollIntervalMs,
    });
  }

  onAppended(listener: () => void, types?: readonly string[]): () => void {
    const entry = hintListener(listener, types);
    this.listeners.add(entry);
    if (!this.listenClient) void this.listen();
    return () => {
      this.listeners.delete(entry);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.hint.cancel();
    const client = this.listenClient;
    this.listenClient = null;
    await client?.end().catch(() => undefined);
    await this.notifying;
    await this.pool.end();
  }

  /**
   * Wakes this process's listeners and other processes' (through NOTIFY), each at most once every
   * HINT_EVERY_MS: appends that commit while a wake-up waits or a NOTIFY is in flight share the
   * next one.
   */
  private announce(types: readonly string[]): void {
    this.hear(types);
    this.unannounced.add(types);
    if (this.notifying) {
      this.notifyAgain = true;
      return;
    }
    this.notifying = (async () => {
      do {
        const wait = this.lastNotify + HINT_EVERY_MS - Date.now();
        if (wait > 0 && !this.closed) await new Promise((resolve) => setTimeout(resolve, wait));
        // appends committed until now are covered by this one
        this.notifyAgain = false;
        this.lastNotify = Date.now();
        const types = this.unannounced.take();
        if (await this.othersListen())
          await this.pool.query(NOTIFY([notifyPayload(this.id, types)])).catch(() => undefined);
      } while (this.notifyAgain && !this.closed);
      this.notifying = null;
    })();
  }

  /** Whether another store (another process's, most often) listens; looked up once every OTHERS_EVERY_MS. */
  private async othersListen(): Promise<boolean> {
    if (this.others && Date.now() - this.others.at < OTHERS_EVERY_MS) return this.others.listening;
    try {
      const { rows } = await this.pool.query<{ listening: boolean }>(OTHERS_LISTENING([`${LISTENER_NAME}${this.id}`]));
      this.others = { listening: rows[0]!.listening, at: Date.now() };
    } catch {
      // unknown: notify, as before there was a way to know
      return true;
    }
    return this.others.listening;
  }

  private hear(types: Iterable<string> | null): void {
    this.heard.add(types);
    this.hint();
  }

  // One LISTEN connection per store carries other processes' appends as wake-ups. If it
  // drops, readers still poll; it reconnects after a poll interval while anyone listens.
  private async listen(): Promise<void> {
    if (this.closed) return;
    // named, so appenders elsewhere know someone listens (othersListen)
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: `${LISTENER_NAME}${this.id}`,
    });
    this.listenClient = client;
    const retry = () => {
      if (this.listenClient !== client) return;
      this.listenClient = null;
      void client.end().catch(() => undefined);
      if (this.closed || this.listeners.size === 0) return;
      this.reconnectTimer = setTimeout(() => void this.listen(), this.pollIntervalMs);
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (n) => {
      const { from, types } = readNotifyPayload(n.payload ?? '');
      if (from !== this.id) this.hear(types);
    });
    try {
      await client.connect();
      await client.query(`listen ${EVENTS_APPENDED_CHANNEL}`);
    } catch {
      retry();
    }
  }
}
