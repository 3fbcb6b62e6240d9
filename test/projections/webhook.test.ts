import type { WebhookDeliveryEvent, WebhookEvent } from '../../src/domain/webhook/events.js';
import { webhookDeliveriesProjection } from '../../src/projections/webhook/deliveries.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { assertStreamEventsApplyTwice, inStream, projectionSpec } from '../support/projections.js';
import { account_id, at, by, delivery_id, requested, webhook_id } from '../support/webhook.js';

// The webhook read models (spec 2.13, 4.13, 8): settings without header values, and deliveries
// with their attempts and the time the 30-day retention counts from.

const at2 = '2026-03-01T10:00:05.000Z';

const settings = (events: WebhookEvent[]) => inStream(`webhook-${account_id}`, events);
const delivery = (events: WebhookDeliveryEvent[]) => inStream(`webhook_delivery-${delivery_id}`, events);

const configured: WebhookEvent = {
  type: 'WebhookConfigured',
  data: {
    webhook_id,
    account_id,
    name: 'slack',
    url: 'https://hooks.example.com/T1',
    headers: { Authorization: 'Bearer s3cret', 'X-Team': 'ops' },
    kind: 'chat',
    secret_nonce: 'nonce-1',
    by,
    at,
  },
};
const attempt = (n: number, outcome: 'delivered' | 'retry' | 'failed', status: number | null, when: string) =>
  ({
    type: 'WebhookAttemptRecorded',
    data: {
      attempt: n,
      started_at: when,
      duration_ms: 40,
      status,
      response: status === null ? null : 'ok',
      error: outcome === 'delivered' ? null : `HTTP ${status}`,
      outcome,
      next_attempt_at: outcome === 'retry' ? at2 : null,
      at: when,
    },
  }) as WebhookDeliveryEvent;

describe('webhook settings projection', () => {
  const given = projectionSpec(webhooksProjection);

  it('a configured webhook is an enabled row with its header names, never their values', () =>
    given([])
      .when(settings([configured]))
      .then('webhooks', [
        {
          webhook_id,
          account_id,
          name: 'slack',
          kind: 'chat',
          enabled: true,
          header_names: ['Authorization', 'X-Team'],
          removed_at: null,
        },
      ]));

  it('update, disable, rotate and remove change their columns', async () => {
    const when = given(settings([configured])).when(
      settings([
        {
          type: 'WebhookUpdated',
          data: { webhook_id, name: 'alerts', url: 'https://x.example/h', headers: {}, kind: 'json', by, at: at2 },
        },
        { type: 'WebhookDisabled', data: { webhook_id, by, at: at2 } },
        { type: 'WebhookSecretRotated', data: { webhook_id, secret_nonce: 'nonce-2', by, at: at2 } },
      ]),
    );
    await when.then('webhooks', [
      {
        name: 'alerts',
        url: 'https://x.example/h',
        header_names: [],
        kind: 'json',
        enabled: false,
        secret_rotated_at: at2,
        updated_at: at2,
      },
    ]);
    await given(settings([configured]))
      .when(settings([{ type: 'WebhookRemoved', data: { webhook_id, by, at: at2 } }]))
      .then('webhooks', [{ webhook_id, enabled: false, removed_at: at2 }]);
  });

  it('applying the events twice changes nothing', () =>
    assertStreamEventsApplyTwice(
      webhooksProjection,
      settings([
        configured,
        { type: 'WebhookDisabled', data: { webhook_id, by, at: at2 } },
        { type: 'WebhookEnabled', data: { webhook_id, by, at: at2 } },
      ]),
    ));
});

describe('webhook deliveries projection', () => {
  const given = projectionSpec(webhookDeliveriesProjection);

  it('a request is a pending delivery due at once, active since the request', () =>
    given([])
      .when(delivery([requested]))
      .then('webhook_deliveries', [
        {
          delivery_id,
          account_id,
          webhook_name: 'slack',
          status: 'pending',
          attempts: 0,
          next_attempt_at: at,
          last_activity_at: at,
          cause: { kind: 'test', by },
        },
      ]));

  it('each attempt is a row; the delivery follows the last one and its time', async () => {
    const when = given(delivery([requested])).when(
      delivery([attempt(1, 'retry', 500, at), attempt(2, 'delivered', 200, at2)]),
    );
    await when.then('webhook_deliveries', [
      {
        status: 'delivered',
        attempts: 2,
        last_status: 200,
        last_error: null,
        next_attempt_at: null,
        last_activity_at: at2,
      },
    ]);
    await when.then('webhook_attempts', [
      { attempt: 1, outcome: 'retry', status: 500, error: 'HTTP 500', at },
      { attempt: 2, outcome: 'delivered', status: 200, error: null, at: at2 },
    ]);
  });

  it('a cancelled delivery keeps the reason', () =>
    given(delivery([requested]))
      .when(delivery([{ type: 'WebhookDeliveryCancelled', data: { reason: 'the webhook was removed', at: at2 } }]))
      .then('webhook_deliveries', [
        { status: 'cancelled', last_error: 'the webhook was removed', next_attempt_at: null, last_activity_at: at2 },
      ]));

  it('applying the events twice changes nothing', () =>
    assertStreamEventsApplyTwice(
      webhookDeliveriesProjection,
      delivery([requested, attempt(1, 'retry', 503, at), attempt(2, 'failed', 404, at2)]),
    ));
});
