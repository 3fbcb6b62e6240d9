import { randomUUID } from 'node:crypto';
import { stableId } from './ads-stream.js';
import type { Delivery } from './delivery.js';
import { sellingEnvelope } from './envelope.js';
import type { Subscriptions } from './subscriptions.js';
import { DATASETS, type AdsType, type SellingType } from './types.js';

// Where every event the simulator raises goes: to the subscription of its seller or profile
// (wrapped, for selling notifications, in the envelope with that subscription's metadata), or
// nowhere when nobody subscribed. Never waits: delivery happens off the caller's path.

export interface EventHub {
  /** A selling notification for `sellerId`; `eventTime` defaults to now. */
  selling(type: SellingType, sellerId: string, payload: object, eventTime?: string): void;
  /** A Marketing Stream message of `profileId`, in its dataset's own keys. */
  stream(type: AdsType, profileId: string, message: Record<string, unknown>): void;
  /** Events raised, and those nobody had subscribed to. */
  stats(): { raised: number; unsubscribed: number };
}

export function createEventHub(
  subscriptions: Subscriptions,
  delivery: Delivery,
  applicationId: string,
  now: () => number,
): EventHub {
  const counts = { raised: 0, unsubscribed: 0 };
  return {
    selling(type, sellerId, payload, eventTime) {
      counts.raised += 1;
      const found = subscriptions.sellingTarget(type, sellerId);
      if (!found) {
        counts.unsubscribed += 1;
        return;
      }
      const publishTime = new Date(now()).toISOString();
      const notificationId = randomUUID();
      const body = sellingEnvelope(type, found.subscription.payloadVersion, eventTime ?? publishTime, payload, {
        applicationId,
        subscriptionId: found.subscription.subscriptionId,
        notificationId,
        publishTime,
      });
      delivery.send({ ...found.target, id: notificationId, type, body: JSON.stringify(body) });
    },
    stream(type, profileId, message) {
      counts.raised += 1;
      const targets = subscriptions.activeStreams(DATASETS[type], profileId);
      if (targets.length === 0) counts.unsubscribed += 1;
      const body = JSON.stringify(message);
      // datasets without an id key get one derived from the message: the same message, the same id
      const id = typeof message.idempotency_id === 'string' ? message.idempotency_id : stableId(body);
      for (const target of targets) delivery.send({ url: target.url, secret: target.secret, id, type, body });
    },
    stats: () => ({ ...counts }),
  };
}
