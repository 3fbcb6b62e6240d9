import type { Knex } from 'knex';
import { MARKETPLACE_EVENT_TYPES, marketplaceEventSchemas, type MarketplaceEvent } from '../../domain/event/events.js';
import { identitiesOf, NO_IDENTITY, type Identity } from '../../domain/event/identities.js';
import { mutationEventSchemas, type MutationEvent } from '../../domain/mutation/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Projection } from '../projection.js';
import { bindableRuns } from '../tables.js';

// Events (spec 2.3): one row per recorded marketplace message, with the listings and advertising
// entities its payload names, and the synthetic rows: the marketplace's answer to a listing push
// and a listing read back while reconciling one (both already recorded on the receipt's stream).
// Rows are keyed by the recorded event's id, so applying an event twice changes nothing.

export const EVENTS_TABLE = 'marketplace_events';
export const EVENT_TARGETS_TABLE = 'marketplace_event_targets';
/** Listing receipts' account, SKU and marketplace, which their later events don't repeat. */
export const LISTING_RECEIPTS_TABLE = 'marketplace_event_listing_receipts';

const SYNTHETIC_SOURCES = [
  'MutationAdmitted',
  'MutationSubmitted',
  'MutationReconciliationChecked',
  'MutationChangeConfirmed',
  'MutationChangeAbsent',
] as const;

/** Event rows per insert, well under PostgreSQL's 65,535 parameters (8 per event row). */
const RUN_ROWS = 500;

interface EventRow {
  id: string;
  account_id: string;
  stream: string | null;
  stream_type: string | null;
  synthetic: boolean;
  occurred_at: string;
  received_at: string;
  payload: unknown;
}

type Rows = Array<{ row: EventRow; targets: Identity[] }>;

/** Inserts event rows (an id already there is left as it is) and the targets of those inserted. */
async function insert(trx: Knex.Transaction, schema: string, rows: Readonly<Rows>): Promise<void> {
  if (rows.length === 0) return;
  const inserted = new Set(
    (
      await trx
        .withSchema(schema)
        .table(EVENTS_TABLE)
        .insert(rows.map(({ row }) => ({ ...row, payload: JSON.stringify(row.payload) })))
        .onConflict('id')
        .ignore()
        .returning('id')
    ).map((r: { id: string }) => r.id),
  );
  // each target carries its event's account, type and times: a listing's latest message of a type
  // is one index probe (latestNaming), however many the listing has had
  const targets = rows
    .filter(({ row }) => inserted.has(row.id))
    .flatMap(({ row, targets }) =>
      targets.map((t, ord) => ({
        event_id: row.id,
        ord,
        ...t,
        account_id: row.account_id,
        stream_type: row.stream_type,
        occurred_at: row.occurred_at,
        received_at: row.received_at,
      })),
    );
  for (const run of bindableRuns(targets)) await trx.withSchema(schema).table(EVENT_TARGETS_TABLE).insert(run);
}

/** A recorded marketplace message's row and the identities its payload names. */
function received(event: RecordedEvent): { row: EventRow; targets: Identity[] } {
  const { data } = parseEvent<MarketplaceEvent>(marketplaceEventSchemas, event);
  return {
    row: {
      id: event.id,
      account_id: data.account_id,
      stream: event.streamId,
      stream_type: data.stream_type,
      synthetic: false,
      occurred_at: data.occurred_at,
      received_at: data.received_at,
      payload: data.payload,
    },
    targets: identitiesOf(data.stream_type, data.payload),
  };
}

type ListingReceipt = { receipt_id: string; account_id: string; sku: string | null; marketplace_id: string | null };

/** A Listing receipt's synthetic row: what the push answered, or what a read showed (null: none). */
function syntheticRow(
  event: RecordedEvent,
  e: MutationEvent,
  receipt: ListingReceipt | undefined,
): Rows[number] | null {
  if (!receipt) return null; // not a listing's receipt
  const synthetic = (at: string, payload: Record<string, unknown>) => ({
    row: {
      id: event.id,
      account_id: receipt.account_id,
      stream: null,
      stream_type: null,
      synthetic: true,
      occurred_at: at,
      received_at: at,
      payload: { receipt_id: e.data.receipt_id, ...payload },
    },
    targets: [{ ...NO_IDENTITY, sku: receipt.sku, marketplace_id: receipt.marketplace_id }],
  });
  switch (e.type) {
    case 'MutationSubmitted': {
      const { http_status, response, submission_id, accepted, recorded_at } = e.data;
      return synthetic(recorded_at, { kind: 'listing_push_answer', http_status, accepted, submission_id, response });
    }
    case 'MutationReconciliationChecked':
    case 'MutationChangeConfirmed':
    case 'MutationChangeAbsent': {
      const { reconciliation, observed } = e.data;
      if (observed === undefined || reconciliation.checkedAt === null) return null;
      return synthetic(reconciliation.checkedAt, { kind: 'listing_read', observed });
    }
    default:
      return null;
  }
}

/**
 * A batch in a few statements whatever its length (a live pipeline interleaves messages with
 * their receipts' events, one or two of each per wake-up): the Listing receipts admitted, then
 * the receipts the later events need that the batch did not admit, then every row.
 */
async function applyBatch(trx: Knex.Transaction, events: readonly RecordedEvent[], schema: string): Promise<void> {
  const receipts = () => trx.withSchema(schema).table(LISTING_RECEIPTS_TABLE);
  const parsed = events.map((event) =>
    event.type === 'MarketplaceEventReceived'
      ? { event, received: received(event) }
      : { event, mutation: parseEvent<MutationEvent>(mutationEventSchemas, event) },
  );
  const admitted: ListingReceipt[] = parsed.flatMap(({ mutation: e }) =>
    e?.type === 'MutationAdmitted' && e.data.target.type === 'Listing'
      ? [
          {
            receipt_id: e.data.receipt_id,
            account_id: e.data.account_id,
            sku: e.data.provider.sku ?? null,
            marketplace_id: e.data.provider.marketplaceId ?? null,
          },
        ]
      : [],
  );
  for (const run of bindableRuns(admitted)) await receipts().insert(run).onConflict('receipt_id').ignore();
  // those admitted in this batch are known already; the others are read
  const known = new Map(admitted.map((r) => [r.receipt_id, r]));
  const wanted = [
    ...new Set(
      parsed.flatMap(({ mutation: e }) =>
        e && e.type !== 'MutationAdmitted' && !known.has(e.data.receipt_id) ? [e.data.receipt_id] : [],
      ),
    ),
  ];
  for (let i = 0; i < wanted.length; i += RUN_ROWS)
    for (const r of await receipts().whereIn('receipt_id', wanted.slice(i, i + RUN_ROWS)))
      known.set(r.receipt_id, r as ListingReceipt);
  const rows: Rows = parsed.flatMap(({ event, received, mutation }) => {
    const row = received ?? syntheticRow(event, mutation!, known.get(mutation!.data.receipt_id));
    return row ? [row] : [];
  });
  for (let i = 0; i < rows.length; i += RUN_ROWS) await insert(trx, schema, rows.slice(i, i + RUN_ROWS));
}

export const eventsProjection: Projection = {
  name: 'events',
  // 2: targets carry their event's account, type and times (latestNaming's index)
  version: 2,
  handles: [...MARKETPLACE_EVENT_TYPES, ...SYNTHETIC_SOURCES],
  tables: [EVENTS_TABLE, EVENT_TARGETS_TABLE, LISTING_RECEIPTS_TABLE],
  async createTables(db, schema) {
    await db.schema.withSchema(schema).createTable(EVENTS_TABLE, (t) => {
      t.uuid('id').primary();
      t.uuid('account_id').notNullable();
      /** the event store stream of a marketplace message (what retention deletes); null for a synthetic row */
      t.text('stream');
      t.text('stream_type');
      t.boolean('synthetic').notNullable();
      t.timestamp('occurred_at', { useTz: true }).notNullable();
      t.timestamp('received_at', { useTz: true }).notNullable();
      t.jsonb('payload').notNullable();
    });
    const events = `${schema}.${EVENTS_TABLE}`;
    // list_events: an account's events newest first (keyset on occurred_at, id)
    await db.raw('create index on ?? (account_id, occurred_at desc, id desc)', [events]);
    // retention prunes by receipt
    await db.raw('create index on ?? (received_at)', [events]);
    await db.schema.withSchema(schema).createTable(EVENT_TARGETS_TABLE, (t) => {
      t.uuid('event_id').notNullable().references('id').inTable(events).onDelete('CASCADE');
      t.integer('ord').notNullable();
      for (const column of Object.keys(NO_IDENTITY)) t.text(column);
      t.uuid('account_id').notNullable();
      /** the event's; null on a synthetic row */
      t.text('stream_type');
      t.timestamp('occurred_at', { useTz: true }).notNullable();
      t.timestamp('received_at', { useTz: true }).notNullable();
      t.primary(['event_id', 'ord']);
    });
    const targets = `${schema}.${EVENT_TARGETS_TABLE}`;
    await db.raw('create index on ?? (asin) where asin is not null', [targets]);
    await db.raw('create index on ?? (sku) where sku is not null', [targets]);
    // latestNaming: a listing's latest message of a type, by SKU, else by ASIN
    const latest = 'stream_type, occurred_at desc, received_at desc';
    await db.raw(`create index on ?? (account_id, sku, ${latest}) where sku is not null`, [targets]);
    await db.raw(`create index on ?? (account_id, asin, ${latest}) where sku is null and asin is not null`, [targets]);
    await db.schema.withSchema(schema).createTable(LISTING_RECEIPTS_TABLE, (t) => {
      t.uuid('receipt_id').primary();
      t.uuid('account_id').notNullable();
      t.text('sku');
      t.text('marketplace_id');
    });
  },
  // one event goes through the batch's code
  apply: (trx, event, schema) => applyBatch(trx, [event], schema),
  applyMany: applyBatch,
};
