import { webhookDeliveryDecider } from '../../domain/webhook/delivery.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { deleteDeliveryRows, expiredDeliveries } from '../../projections/webhook/retention.js';
import { streamName } from '../shared/handler.js';
import { pruneStreamsPastDays } from '../shared/prune-streams.js';

// Retention (spec 8): webhook deliveries are kept 30 days from the attempt. A finished delivery's
// stream (its request and every attempt with the response kept) leaves the log first, then its
// read-model rows, so a run cut short leaves rows the next run finds again.

export const DELIVERY_RETENTION_DAYS = 30;

/** Prunes every finished delivery past its retention at `now`, in batches; returns how many went. */
export async function pruneWebhookDeliveries(db: Knex, store: EventStore, now: Date, batch = 500): Promise<number> {
  return pruneStreamsPastDays(store, now, DELIVERY_RETENTION_DAYS, batch, {
    due: (before, limit) => expiredDeliveries(db, before, limit),
    stream: (id) => streamName(webhookDeliveryDecider.aggregate, id),
    remove: (ids) => deleteDeliveryRows(db, ids),
  });
}
