import { webhookDeliveryEventSchemas, type WebhookDeliveryEvent } from '../../domain/webhook/events.js';
import { eventProjection } from '../tables.js';

// Webhook deliveries and their attempts (spec 4.13 "Activity lists every delivery with status and
// response"). `last_activity_at` (the request, then each attempt) is what the 30-day retention of
// spec 8 counts from; each attempt row has its own `at`. A delivery row remembers the last
// revision of its stream it applied, and attempts are keyed by number: a replay changes nothing.

export const DELIVERIES_TABLE = 'webhook_deliveries';
export const ATTEMPTS_TABLE = 'webhook_attempts';

export const webhookDeliveriesProjection = eventProjection<WebhookDeliveryEvent>({
  name: 'webhook_deliveries',
  version: 2,
  events: webhookDeliveryEventSchemas,
  tables: {
    [DELIVERIES_TABLE]: {
      columns: {
        delivery_id: 'uuid primary',
        account_id: 'uuid',
        webhook_id: 'uuid',
        webhook_name: 'text',
        cause: 'jsonb',
        body: 'text',
        /** pending, delivered, failed, cancelled */
        status: 'text',
        attempts: 'integer',
        last_status: 'integer null',
        last_error: 'text null',
        next_attempt_at: 'timestamptz null',
        requested_at: 'timestamptz',
        last_activity_at: 'timestamptz',
        revision: 'integer',
      },
      indexes: [['account_id', 'requested_at'], ['last_activity_at']],
    },
    [ATTEMPTS_TABLE]: {
      columns: {
        delivery_id: 'uuid',
        attempt: 'integer',
        started_at: 'timestamptz',
        duration_ms: 'integer',
        status: 'integer null',
        response: 'text null',
        error: 'text null',
        outcome: 'text',
        at: 'timestamptz',
      },
      primary: ['delivery_id', 'attempt'],
      indexes: [['at']],
    },
  },
  async afterCreate(db, schema) {
    await db.raw(`create index on ??.?? (next_attempt_at) where status = 'pending'`, [schema, DELIVERIES_TABLE]);
    // the deliveries an event caused (the console's event page), however many the account has
    await db.raw(`create index on ??.?? ((cause->>'event_id'))`, [schema, DELIVERIES_TABLE]);
  },
  async apply(trx, event, recorded, schema) {
    const delivery_id = recorded.streamId.slice('webhook_delivery-'.length);
    const revision = Number(recorded.revision);
    const deliveries = () => trx.withSchema(schema).table(DELIVERIES_TABLE);
    switch (event.type) {
      case 'WebhookDeliveryRequested': {
        const d = event.data;
        await deliveries()
          .insert({
            delivery_id,
            account_id: d.account_id,
            webhook_id: d.webhook_id,
            webhook_name: d.webhook_name,
            cause: JSON.stringify(d.cause),
            body: d.body,
            status: 'pending',
            attempts: 0,
            next_attempt_at: d.at,
            requested_at: d.at,
            last_activity_at: d.at,
            revision,
          })
          .onConflict('delivery_id')
          .ignore();
        return;
      }
      case 'WebhookAttemptRecorded': {
        const a = event.data;
        await trx
          .withSchema(schema)
          .table(ATTEMPTS_TABLE)
          .insert({
            delivery_id,
            attempt: a.attempt,
            started_at: a.started_at,
            duration_ms: a.duration_ms,
            status: a.status,
            response: a.response,
            error: a.error,
            outcome: a.outcome,
            at: a.at,
          })
          .onConflict(['delivery_id', 'attempt'])
          .ignore();
        await deliveries()
          .where({ delivery_id })
          .where('revision', '<', revision)
          .update({
            status: a.outcome === 'retry' ? 'pending' : a.outcome,
            attempts: a.attempt,
            last_status: a.status,
            last_error: a.error,
            next_attempt_at: a.next_attempt_at,
            last_activity_at: a.at,
            revision,
          });
        return;
      }
      case 'WebhookDeliveryCancelled':
        await deliveries().where({ delivery_id }).where('revision', '<', revision).update({
          status: 'cancelled',
          last_error: event.data.reason,
          next_attempt_at: null,
          last_activity_at: event.data.at,
          revision,
        });
        return;
    }
  },
});
