import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { webhookDeliveryDecider } from '../../domain/webhook/delivery.js';
import type { WebhookAttemptRecorded } from '../../domain/webhook/events.js';
import type { EventStore } from '../../eventstore/port.js';
import { aggregateStream } from '../shared/handler.js';

// "Send test" waits for the delivery worker's first attempt (CLI `webhook test`, the console's
// Settings), reading the delivery's own stream: what the receiver answered, without the read
// model's lag. Bounded: with no worker running, nothing would ever come.

export type FirstAttempt =
  | { kind: 'attempt'; attempt: z.infer<typeof WebhookAttemptRecorded> }
  | { kind: 'cancelled'; reason: string }
  /** no attempt within the wait */
  | { kind: 'queued'; waited_ms: number };

const POLL_MS = 200;

export async function firstAttempt(store: EventStore, delivery_id: string, waitMs: number): Promise<FirstAttempt> {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const { events, state } = await aggregateStream(store, webhookDeliveryDecider, delivery_id);
    const last = events.at(-1);
    if (last?.type === 'WebhookDeliveryCancelled') return { kind: 'cancelled', reason: last.data.reason };
    if (last?.type === 'WebhookAttemptRecorded') return { kind: 'attempt', attempt: last.data };
    if (state.status === null) throw new Error(`delivery ${delivery_id} was not recorded`);
    await sleep(POLL_MS);
  }
  return { kind: 'queued', waited_ms: waitMs };
}
