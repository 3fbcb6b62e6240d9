import type { WebhookDeliveryEvent } from '../../src/domain/webhook/events.js';

// One account's webhook and one delivery to it, for the decider and read-model specs.

export const account_id = '0b7d8a52-3f1e-4c55-9d59-0d2c4c3d1a10';
export const webhook_id = '5f0e4a9e-8a4b-4f43-9d0d-6d8e7b1c2a3f';
export const delivery_id = 'c3d2a9b8-1e0f-4a5b-8c7d-6e5f4a3b2c1d';
export const by = 'cli';
export const at = '2026-03-01T10:00:00.000Z';

/** A "send test" of `{ "text": "hi" }` to the webhook named slack. */
export const requested: Extract<WebhookDeliveryEvent, { type: 'WebhookDeliveryRequested' }> = {
  type: 'WebhookDeliveryRequested',
  data: {
    delivery_id,
    account_id,
    webhook_id,
    webhook_name: 'slack',
    body: '{"text":"hi"}',
    cause: { kind: 'test', by },
    at,
  },
};
