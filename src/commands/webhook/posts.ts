import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError } from '../../domain/shared/errors.js';
import { newId, stableId } from '../../domain/shared/ids.js';
import { webhookDecider } from '../../domain/webhook/decide.js';
import { webhookDeliveryDecider, type DeliveryCommand } from '../../domain/webhook/delivery.js';
import type { AlertKind } from '../../domain/alert/events.js';
import type { DeliveryCause } from '../../domain/webhook/events.js';
import { MAX_POSTS_PER_RUN, webhookBody } from '../../domain/webhook/payload.js';
import { webhookNamed, type Webhook } from '../../domain/webhook/state.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import type { Logger } from '../../infra/logger.js';
import { aggregateStream, handleCreation } from '../shared/handler.js';

// Posts become deliveries (spec 2.13, 4.13): each is recorded in a stream of its own, then handed
// to the delivery queue. A live run's posts are keyed by (run, index), so running the same run's
// effects again records and posts nothing twice; a new run posts under new ids. Dry runs never
// call this.

export interface WebhookPost {
  /** the webhook's name, as in `context.webhooks.<name>` */
  webhook: string;
  payload: unknown;
}

export interface WebhookPosts {
  accountId: string;
  posts: readonly WebhookPost[];
  cause: { automationId: string; automationVersion: number; eventId: string; runId?: string };
}

export interface WebhookPostsResult {
  deliveries: Array<{ index: number; webhook: string; delivery_id: string }>;
  /** posts to a webhook that is no longer enabled (disabled or removed since the run began) */
  skipped: Array<{ index: number; webhook: string; reason: string }>;
}

/** Hands recorded deliveries to the delivery queue (a job already there is not added twice). */
export interface WebhookNotifier {
  requested(deliveryIds: readonly string[]): Promise<void>;
}

export interface WebhookPostDeps {
  store: EventStore;
  notifier: WebhookNotifier;
  logger: Pick<Logger, 'warn'>;
  now?: () => Date;
}

/** How long recording waits for the queue before leaving the deliveries to the workers' sweep. */
const NOTICE_TIMEOUT_MS = 1000;

/** Best effort: the deliveries are durable already and the sweep finds any a lost notice missed. */
async function notify(deps: WebhookPostDeps, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const abort = new AbortController();
  const late = sleep(NOTICE_TIMEOUT_MS, 'late' as const, { signal: abort.signal }).catch(() => 'sent' as const);
  try {
    const result = await Promise.race([deps.notifier.requested(ids).then(() => 'sent' as const), late]);
    if (result === 'late') throw new Error(`the webhook queue did not answer within ${NOTICE_TIMEOUT_MS} ms`);
  } catch (err) {
    deps.logger.warn(
      { delivery_ids: ids, err: (err as Error).message },
      'could not enqueue webhook deliveries; the sweep will',
    );
  } finally {
    abort.abort();
  }
}

async function requestDelivery(
  deps: WebhookPostDeps,
  webhook: Webhook,
  command: Omit<Extract<DeliveryCommand, { type: 'RequestDelivery' }>, 'type' | 'webhook_id' | 'webhook_name' | 'at'>,
  metadata: EventMetadata,
): Promise<void> {
  await handleCreation(
    webhookDeliveryDecider,
    command.delivery_id,
    {
      type: 'RequestDelivery',
      ...command,
      webhook_id: webhook.webhook_id,
      webhook_name: webhook.name,
      at: (deps.now ?? (() => new Date()))().toISOString(),
    },
    { store: deps.store, metadata },
  );
}

/** The delivery id of a run's `index`-th post: a run without its own id is keyed by automation version and event. */
export function postDeliveryId(cause: WebhookPosts['cause'], index: number): string {
  const run = cause.runId ?? `${cause.automationId}@${cause.automationVersion}/${cause.eventId}`;
  return stableId('webhook-delivery', `${run}#${index}`);
}

/**
 * Records a live run's posts and enqueues them. Refuses the whole batch (`invalid`, nothing
 * recorded) when there are too many posts or a payload can't be a body; a post to a webhook no
 * longer enabled is skipped and reported.
 */
export async function enqueueWebhookPosts(deps: WebhookPostDeps, input: WebhookPosts): Promise<WebhookPostsResult> {
  if (input.posts.length > MAX_POSTS_PER_RUN)
    throw new DomainError(
      'invalid',
      `posts: ${input.posts.length} webhook posts in one run; at most ${MAX_POSTS_PER_RUN}`,
    );
  const { state } = await aggregateStream(deps.store, webhookDecider, input.accountId);
  const result: WebhookPostsResult = { deliveries: [], skipped: [] };
  const planned = input.posts.flatMap((post, index) => {
    const webhook = webhookNamed(state, post.webhook);
    if (!webhook?.enabled) {
      result.skipped.push({ index, webhook: post.webhook, reason: `no enabled webhook named '${post.webhook}'` });
      return [];
    }
    return [{ index, webhook, body: webhookBody(webhook.kind, post.payload, `posts[${index}].payload`) }];
  });
  const { automationId, automationVersion, eventId, runId } = input.cause;
  const cause: DeliveryCause = {
    kind: 'automation',
    automation_id: automationId,
    automation_version: automationVersion,
    event_id: eventId,
    run_id: runId ?? null,
  };
  const metadata: EventMetadata = {
    actor: { kind: 'automation', id: automationId },
    account_id: input.accountId,
    causation_id: runId ?? eventId,
  };
  for (const { index, webhook, body } of planned) {
    const delivery_id = postDeliveryId(input.cause, index);
    await requestDelivery(deps, webhook, { delivery_id, account_id: input.accountId, body, cause }, metadata);
    result.deliveries.push({ index, webhook: webhook.name, delivery_id });
  }
  await notify(
    deps,
    result.deliveries.map((d) => d.delivery_id),
  );
  return result;
}

/** The fixed body of "send test". */
export const TEST_PAYLOAD = { text: 'Test delivery from the marketplace automation service', test: true };

/** "Send test" (spec 4.13): a fixed payload to one webhook, enabled or not, through the same delivery path. */
export async function sendTestWebhook(
  deps: WebhookPostDeps,
  input: { accountId: string; name: string; by: string },
): Promise<{ delivery_id: string }> {
  const { state } = await aggregateStream(deps.store, webhookDecider, input.accountId);
  const webhook = webhookNamed(state, input.name);
  if (!webhook)
    throw new DomainError('not_found', `name: no webhook named '${input.name}' on this account`, { argument: 'name' });
  const delivery_id = newId();
  const body = webhookBody(webhook.kind, TEST_PAYLOAD);
  await requestDelivery(
    deps,
    webhook,
    { delivery_id, account_id: input.accountId, body, cause: { kind: 'test', by: input.by } },
    { actor: { kind: 'user', id: input.by }, account_id: input.accountId },
  );
  await notify(deps, [delivery_id]);
  return { delivery_id };
}

/** An alert's post: its delivery is keyed by the alert, so handing it off again records nothing twice. */
export async function postAlert(
  deps: WebhookPostDeps,
  input: {
    accountId: string;
    webhook: string;
    alert: { alert_id: string; kind: AlertKind; detail: string; at: string };
  },
): Promise<{ delivery_id: string } | { refused: string }> {
  const { state } = await aggregateStream(deps.store, webhookDecider, input.accountId);
  const webhook = webhookNamed(state, input.webhook);
  if (!webhook?.enabled) return { refused: `no enabled webhook named '${input.webhook}'` };
  const { alert_id, kind, detail, at } = input.alert;
  const delivery_id = stableId('webhook-delivery', `alert:${alert_id}`);
  // `text` is what a chat webhook shows; a JSON one gets every field
  const body = webhookBody(webhook.kind, {
    text: `Alert: ${detail}`,
    alert: kind,
    alert_id,
    account_id: input.accountId,
    detail,
    raised_at: at,
  });
  await requestDelivery(
    deps,
    webhook,
    { delivery_id, account_id: input.accountId, body, cause: { kind: 'alert', alert_id, alert_kind: kind } },
    { actor: { kind: 'worker', id: 'alerts' }, account_id: input.accountId, causation_id: alert_id },
  );
  await notify(deps, [delivery_id]);
  return { delivery_id };
}
