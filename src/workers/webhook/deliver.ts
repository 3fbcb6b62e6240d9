import { Webhook } from 'standardwebhooks';
import { aggregateStream, handleCommand, type CommandContext } from '../../commands/shared/handler.js';
import { webhookDecider } from '../../domain/webhook/decide.js';
import { webhookDeliveryDecider } from '../../domain/webhook/delivery.js';
import type { DeliveryPolicy } from '../../domain/webhook/retry.js';
import { webhookSecret } from '../../domain/webhook/secret.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Poster } from './post.js';

// One step of a delivery (spec 4.13): the next attempt when it is due, recorded in the delivery's
// stream, or the delivery's end when its webhook was removed (or disabled; a "send test" still
// goes). Settings are read from the account's stream at each attempt, so a fixed URL helps the
// remaining retries. Run twice, a step records nothing twice: a late duplicate finds the attempt
// recorded or the delivery ended. An attempt whose answer is lost in a crash is sent again under
// the same delivery id; receivers must tolerate repeats (spec 4.13).

export interface DeliveryDeps {
  store: EventStore;
  poster: Poster;
  signingKey: string;
  policy: DeliveryPolicy;
  now: () => Date;
}

const USER_AGENT = 'marketplace-automation-service-webhooks/1';

/** Signed headers of one attempt: Standard Webhooks (id = delivery id, per-attempt timestamp) and the spec's delivery id. */
export function deliveryHeaders(
  configured: Record<string, string>,
  secret: string,
  delivery_id: string,
  body: string,
  at: Date,
): Record<string, string> {
  return {
    ...configured,
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-delivery-id': delivery_id,
    'webhook-id': delivery_id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(delivery_id, at, body),
  };
}

/** Does what is due; returns when the delivery wants its next step (null: it has ended). */
export async function deliveryStep(deps: DeliveryDeps, delivery_id: string): Promise<Date | null> {
  const { state } = await aggregateStream(deps.store, webhookDeliveryDecider, delivery_id);
  if (state.status !== 'pending') return null;
  const due = new Date(state.next_attempt_at!);
  if (due.getTime() > deps.now().getTime()) return due;
  const ctx: CommandContext = {
    store: deps.store,
    metadata: { actor: { kind: 'worker', id: 'webhook' }, account_id: state.account_id! },
  };
  const record = (command: Parameters<typeof webhookDeliveryDecider.decide>[0]) =>
    handleCommand(webhookDeliveryDecider, delivery_id, command, ctx);
  const settings = await aggregateStream(deps.store, webhookDecider, state.account_id!);
  const webhook = settings.state.webhooks.get(state.webhook_id!);
  if (!webhook || (!webhook.enabled && !state.test)) {
    const reason = webhook ? 'the webhook was disabled' : 'the webhook was removed';
    await record({ type: 'CancelDelivery', reason, at: deps.now().toISOString() });
    return null;
  }
  const startedAt = deps.now();
  const secret = webhookSecret(deps.signingKey, webhook.webhook_id, webhook.secret_nonce);
  const headers = deliveryHeaders(webhook.headers, secret, delivery_id, state.body, startedAt);
  const answer = await deps.poster.post(webhook.url, headers, state.body);
  const { events } = await record({
    type: 'RecordAttempt',
    attempt: state.attempts + 1,
    started_at: startedAt.toISOString(),
    policy: deps.policy,
    ...answer,
    at: deps.now().toISOString(),
  });
  const recorded = events[0];
  if (recorded?.type !== 'WebhookAttemptRecorded' || recorded.data.next_attempt_at === null) return null;
  return new Date(recorded.data.next_attempt_at);
}
