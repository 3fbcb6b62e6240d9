import { liveSlotEventSchemas, type LiveSlotEvent } from '../../domain/automation/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import { subscriptionDecider } from '../../domain/stream/subscription.js';
import { subscriptionEventSchemas, type SubscriptionEvent } from '../../domain/stream/subscription-events.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import type { Projection } from '../projection.js';

// One row per (account, event type) that has a subscription stream or a live slot: the
// subscription's state as its decider folds it, and which automation needs it (the live slot,
// and when the last live one stopped: the sweep's grace period counts from there). Each half
// remembers the last revision of its stream applied, so a replay changes nothing.

export const STREAMS_TABLE = 'streams';

const SUBSCRIPTION_STREAM = `${subscriptionDecider.aggregate}-`;

const key = (streamId: string, prefix: string) => {
  const [account_id, stream_type] = streamId.slice(prefix.length).split(/\.(.*)/s) as [string, string];
  return { account_id, stream_type };
};

async function upsert(
  trx: Knex.Transaction,
  schema: string,
  row: { account_id: string; stream_type: string },
  guard: 'revision' | 'slot_revision',
  revision: number,
  changes: Record<string, unknown>,
) {
  const table = () => trx.withSchema(schema).table(STREAMS_TABLE);
  await table()
    .insert({ ...row, status: 'inactive', requests: 0, subscription_ids: '[]', revision: -1, slot_revision: -1 })
    .onConflict(['account_id', 'stream_type'])
    .ignore();
  await table()
    .where(row)
    .where(guard, '<', revision)
    .update({ ...changes, [guard]: revision });
}

async function applySubscription(trx: Knex.Transaction, recorded: RecordedEvent, schema: string) {
  const event = parseEvent<SubscriptionEvent>(subscriptionEventSchemas, recorded);
  const row = key(recorded.streamId, SUBSCRIPTION_STREAM);
  const current = await trx.withSchema(schema).table(STREAMS_TABLE).where(row).first();
  const state = subscriptionDecider.evolve(
    current
      ? {
          status: current.status,
          requests: current.requests,
          subscription_ids: current.subscription_ids,
          destination_id: current.destination_id,
          error: current.error,
        }
      : subscriptionDecider.initialState(),
    event,
  );
  await upsert(trx, schema, row, 'revision', Number(recorded.revision), {
    ...state,
    subscription_ids: JSON.stringify(state.subscription_ids),
    changed_at: event.data.at,
  });
}

async function applySlot(trx: Knex.Transaction, recorded: RecordedEvent, schema: string) {
  const { data } = parseEvent<LiveSlotEvent>(liveSlotEventSchemas, recorded);
  const row = { account_id: data.account_id, stream_type: data.stream_type };
  await upsert(trx, schema, row, 'slot_revision', Number(recorded.revision), {
    live_automation_id: data.automation_id,
    released_at: data.automation_id ? null : data.at,
  });
}

export const streamsProjection: Projection = {
  name: 'streams',
  version: 1,
  handles: [...Object.keys(subscriptionEventSchemas), ...Object.keys(liveSlotEventSchemas)],
  tables: [STREAMS_TABLE],
  async createTables(db, schema) {
    await db.schema.withSchema(schema).createTable(STREAMS_TABLE, (t) => {
      t.uuid('account_id').notNullable();
      t.text('stream_type').notNullable();
      /** the subscription decider's status */
      t.text('status').notNullable();
      t.integer('requests').notNullable();
      t.jsonb('subscription_ids').notNullable();
      t.text('destination_id');
      t.text('error');
      /** when the subscription last changed */
      t.timestamp('changed_at', { useTz: true });
      t.uuid('live_automation_id');
      /** when the slot last went empty (null while an automation is live) */
      t.timestamp('released_at', { useTz: true });
      /** the last revisions applied of the subscription stream and of the live slot */
      t.integer('revision').notNullable();
      t.integer('slot_revision').notNullable();
      t.primary(['account_id', 'stream_type']);
    });
  },
  async apply(trx, recorded, schema) {
    if (recorded.type in liveSlotEventSchemas) return applySlot(trx, recorded, schema);
    return applySubscription(trx, recorded, schema);
  },
};
