import { webhookDeliveryEventSchemas, type WebhookDeliveryEvent } from '../../domain/webhook/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import type { Projection } from '../projection.js';

// Webhook deliveries and their attempts (spec 4.13 "Activity lists every delivery with status and
// response"). `last_activity_at` (the request, then each attempt) is what the 30-day retention of
// spec 8 counts from; each attempt row has its own `at`. A delivery row remembers the last
// revision of its stream it applied, and attempts are keyed by number: a replay changes nothing.

export const DELIVERIES_TABLE = 'webhook_deliveries';
export const ATTEMPTS_TABLE = 'webhook_attempts';

export const webhookDeliveriesProjection: Projection = {
  name: 'webhook_deliveries',
  version: 1,
  handles: Object.keys(webhookDeliveryEventSchemas),
  tables: [DELIVERIES_TABLE, ATTEMPTS_TABLE],
  async createTables(db, schema) {
    await db.schema.withSchema(schema).createTable(DELIVERIES_TABLE, (t) => {
      t.uuid('delivery_id').primary();
      t.uuid('account_id').notNullable();
      t.uuid('webhook_id').notNullable();
      t.text('webhook_name').notNullable();
      t.jsonb('cause').notNullable();
      t.text('body').notNullable();
      /** pending, delivered, failed, cancelled */
      t.text('status').notNullable();
      t.integer('attempts').notNullable();
      t.integer('last_status');
      t.text('last_error');
      t.timestamp('next_attempt_at', { useTz: true });
      t.timestamp('requested_at', { useTz: true }).notNullable();
      t.timestamp('last_activity_at', { useTz: true }).notNullable();
      t.integer('revision').notNullable();
      t.index(['account_id', 'requested_at']);
      t.index(['last_activity_at']);
    });
    await db.raw(`create index on ??.?? (next_attempt_at) where status = 'pending'`, [schema, DELIVERIES_TABLE]);
    await db.schema.withSchema(schema).createTable(ATTEMPTS_TABLE, (t) => {
      t.uuid('delivery_id').notNullable();
      t.integer('attempt').notNullable();
      t.timestamp('started_at', { useTz: true }).notNullable();
      t.integer('duration_ms').notNullable();
      t.integer('status');
      t.text('response');
      t.text('error');
      t.text('outcome').notNullable();
      t.timestamp('at', { useTz: true }).notNullable();
      t.primary(['delivery_id', 'attempt']);
      t.index(['at']);
    });
  },
  async apply(trx, recorded, schema) {
    const event = parseEvent<WebhookDeliveryEvent>(webhookDeliveryEventSchemas, recorded);
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
};
