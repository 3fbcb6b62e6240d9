import { withLiveSlot, type LiveSlotEvent } from '../../domain/automation/events.js';
import { subscriptionDecider } from '../../domain/stream/subscription.js';
import { subscriptionEventSchemas, type SubscriptionEvent } from '../../domain/stream/subscription-events.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { eventProjection } from '../tables.js';

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

async function applySubscription(
  trx: Knex.Transaction,
  event: SubscriptionEvent,
  recorded: RecordedEvent,
  schema: string,
) {
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

async function applySlot(trx: Knex.Transaction, { data }: LiveSlotEvent, recorded: RecordedEvent, schema: string) {
  const row = { account_id: data.account_id, stream_type: data.stream_type };
  await upsert(trx, schema, row, 'slot_revision', Number(recorded.revision), {
    live_automation_id: data.automation_id,
    released_at: data.automation_id ? null : data.at,
  });
}

export const streamsProjection = eventProjection<SubscriptionEvent | LiveSlotEvent>({
  name: 'streams',
  version: 1,
  events: withLiveSlot(subscriptionEventSchemas),
  tables: {
    [STREAMS_TABLE]: {
      columns: {
        account_id: 'uuid',
        stream_type: 'text',
        /** the subscription decider's status */
        status: 'text',
        requests: 'integer',
        subscription_ids: 'jsonb',
        destination_id: 'text null',
        error: 'text null',
        /** when the subscription last changed */
        changed_at: 'timestamptz null',
        live_automation_id: 'uuid null',
        /** when the slot last went empty (null while an automation is live) */
        released_at: 'timestamptz null',
        /** the last revisions applied of the subscription stream and of the live slot */
        revision: 'integer',
        slot_revision: 'integer',
      },
      primary: ['account_id', 'stream_type'],
    },
  },
  async apply(trx, event, recorded, schema) {
    if (event.type === 'LiveAutomationChanged') return applySlot(trx, event, recorded, schema);
    return applySubscription(trx, event, recorded, schema);
  },
});
