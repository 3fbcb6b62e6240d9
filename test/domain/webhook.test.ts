import { expect } from 'chai';
import { Webhook as Verifier } from 'standardwebhooks';
import { webhookDecider, type WebhookCommand } from '../../src/domain/webhook/decide.js';
import { webhookDeliveryDecider, type DeliveryCommand } from '../../src/domain/webhook/delivery.js';
import type { WebhookDeliveryEvent, WebhookEvent } from '../../src/domain/webhook/events.js';
import { MAX_BODY_BYTES, webhookBody } from '../../src/domain/webhook/payload.js';
import { DELIVERY_POLICY, retryAfterMs, type AttemptResult } from '../../src/domain/webhook/retry.js';
import { MAX_WEBHOOKS } from '../../src/domain/webhook/rules.js';
import { webhookSecret } from '../../src/domain/webhook/secret.js';
import { given } from '../support/gwt.js';
import { account_id, at, by, requested, webhook_id } from '../support/webhook.js';

// spec 2.13 and 4.13: an account's webhook settings, then one delivery's attempts and retries.

const settings = { name: 'slack', url: 'https://hooks.example.com/T1', headers: {}, kind: 'json' as const };
const configure: Extract<WebhookCommand, { type: 'ConfigureWebhook' }> = {
  type: 'ConfigureWebhook',
  account_id,
  webhook_id,
  ...settings,
  secret_nonce: 'nonce-1',
  allow_http: false,
  by,
  at,
};
const configured: WebhookEvent = {
  type: 'WebhookConfigured',
  data: { webhook_id, account_id, ...settings, secret_nonce: 'nonce-1', by, at },
};
const cmd = <T extends WebhookCommand['type']>(type: T, extra: object = {}) =>
  ({ type, account_id, name: 'slack', by, at, ...extra }) as Extract<WebhookCommand, { type: T }>;
const update = (changes: object, allow_http = false) => cmd('UpdateWebhook', { changes, allow_http });
const other = (n: number): WebhookEvent => ({
  type: 'WebhookConfigured',
  data: {
    ...configured.data,
    webhook_id: `5f0e4a9e-8a4b-4f43-9d0d-${String(n).padStart(12, '0')}`,
    name: `hook${n}`,
  } as Extract<WebhookEvent, { type: 'WebhookConfigured' }>['data'],
});

describe('webhook settings decider (spec 2.13)', () => {
  it('configures an enabled webhook, recording a nonce, never the secret', () =>
    given(webhookDecider, []).when(configure).then([configured]));

  it('configuring the same id again records nothing', () =>
    given(webhookDecider, [configured]).when(configure).then([]));

  it('refuses a name that is not a JavaScript identifier, a reserved word or a built-in property', () => {
    for (const name of ['my-hook', '1st', 'a b', '', 'class', 'constructor', '__proto__', 'x'.repeat(65)])
      given(webhookDecider, [])
        .when({ ...configure, name })
        .thenThrows('invalid', /^name: /);
    given(webhookDecider, [])
      .when({ ...configure, name: 'café_$1' })
      .then([{ type: 'WebhookConfigured', data: { ...configured.data, name: 'café_$1' } as never }]);
  });

  it('refuses a name the account already uses, and a 21st webhook', () => {
    given(webhookDecider, [configured])
      .when({ ...configure, webhook_id: '5f0e4a9e-8a4b-4f43-9d0d-000000000099' })
      .thenThrows('invalid', /already has a webhook named 'slack'/);
    const full = Array.from({ length: MAX_WEBHOOKS }, (_, i) => other(i));
    given(webhookDecider, full)
      .when(configure)
      .thenThrows('invalid', /already has 20 webhooks/);
  });

  it('wants https without credentials or fragment; plain http only when private networks are allowed', () => {
    const refused: Array<[string, RegExp]> = [
      ['http://hooks.example.com/x', /must use https \(plain http/],
      ['ftp://hooks.example.com/x', /must use https/],
      ['hooks.example.com/x', /is not an absolute URL/],
      ['https://user:pw@hooks.example.com/x', /carries credentials/],
      ['https://hooks.example.com/x#frag', /#fragment/],
      ['https://10.1.2.3/x', /private, loopback or link-local/],
      ['https://[::1]:8443/x', /private, loopback or link-local/],
      ['https://169.254.169.254/latest', /private, loopback or link-local/],
      ['https://localhost/x', /private, loopback or link-local/],
    ];
    for (const [url, why] of refused)
      given(webhookDecider, [])
        .when({ ...configure, url })
        .thenThrows('invalid', why);
    given(webhookDecider, [])
      .when({ ...configure, url: 'http://127.0.0.1:8080/x', allow_http: true })
      .then([{ type: 'WebhookConfigured', data: { ...configured.data, url: 'http://127.0.0.1:8080/x' } }]);
  });

  it('refuses hop-by-hop and service-set headers, bad names, control characters and duplicates', () => {
    const refused: Array<[Record<string, string>, RegExp]> = [
      [{ Connection: 'close' }, /hop-by-hop/],
      [{ 'Transfer-Encoding': 'chunked' }, /hop-by-hop/],
      [{ 'Webhook-Signature': 'v1,x' }, /set by the service/],
      [{ 'X-Service-Delivery-Id': 'x' }, /set by the service/],
      [{ 'Content-Type': 'text/plain' }, /set by the service/],
      [{ 'Bad Name': 'x' }, /not a valid header name/],
      [{ 'X-Token': 'a\r\nInjected: 1' }, /control characters/],
      [{ 'X-Token': 'a', 'x-token': 'b' }, /given twice/],
      [{ 'X-Big': 'x'.repeat(4097) }, /over 4096 bytes/],
    ];
    for (const [headers, why] of refused)
      given(webhookDecider, [])
        .when({ ...configure, headers })
        .thenThrows('invalid', why);
    const headers = { Authorization: 'Bearer abc', 'X-Team': 'ops' };
    given(webhookDecider, [])
      .when({ ...configure, headers })
      .then([{ type: 'WebhookConfigured', data: { ...configured.data, headers } }]);
  });

  it('an update records the whole new settings; an update that changes nothing records nothing', () => {
    given(webhookDecider, [configured])
      .when(update({ url: 'https://hooks.example.com/T2', kind: 'chat' }))
      .then([
        {
          type: 'WebhookUpdated',
          data: { webhook_id, ...settings, url: 'https://hooks.example.com/T2', kind: 'chat', by, at },
        },
      ]);
    given(webhookDecider, [configured])
      .when(update({ url: settings.url }))
      .then([]);
  });

  it('renames to a free name only; checks a new URL with the same policy', () => {
    given(webhookDecider, [configured, other(1)])
      .when(update({ name: 'hook1' }))
      .thenThrows('invalid', /already has a webhook named 'hook1'/);
    given(webhookDecider, [configured])
      .when(update({ url: 'http://127.0.0.1/x' }))
      .thenThrows('invalid', /must use https/);
    given(webhookDecider, [configured])
      .when(update({ name: 'alerts' }))
      .then([{ type: 'WebhookUpdated', data: { webhook_id, ...settings, name: 'alerts', by, at } }]);
  });

  it('disable, enable, rotate and remove name the webhook; twice the same switch records nothing', () => {
    const disabled: WebhookEvent = { type: 'WebhookDisabled', data: { webhook_id, by, at } };
    given(webhookDecider, [configured]).when(cmd('DisableWebhook')).then([disabled]);
    given(webhookDecider, [configured, disabled]).when(cmd('DisableWebhook')).then([]);
    given(webhookDecider, [configured, disabled])
      .when(cmd('EnableWebhook'))
      .then([{ type: 'WebhookEnabled', data: { webhook_id, by, at } }]);
    given(webhookDecider, [configured]).when(cmd('EnableWebhook')).then([]);
    given(webhookDecider, [configured])
      .when(cmd('RotateWebhookSecret', { secret_nonce: 'nonce-2' }))
      .then([{ type: 'WebhookSecretRotated', data: { webhook_id, secret_nonce: 'nonce-2', by, at } }]);
    given(webhookDecider, [configured])
      .when(cmd('RemoveWebhook'))
      .then([{ type: 'WebhookRemoved', data: { webhook_id, by, at } }]);
  });

  it('an unknown name is not_found, listing the names the account has', () => {
    given(webhookDecider, [configured])
      .when(cmd('DisableWebhook', { name: 'teams' }))
      .thenThrows('not_found', /no webhook named 'teams' on this account \(it has: slack\)/);
    given(webhookDecider, [])
      .when(cmd('RemoveWebhook'))
      .thenThrows('not_found', /\(it has none\)/);
  });

  it('a removed webhook frees its name', () => {
    const removed: WebhookEvent = { type: 'WebhookRemoved', data: { webhook_id, by, at } };
    const again = { ...configure, webhook_id: '5f0e4a9e-8a4b-4f43-9d0d-000000000077' };
    given(webhookDecider, [configured, removed])
      .when(again)
      .then([{ type: 'WebhookConfigured', data: { ...configured.data, webhook_id: again.webhook_id } }]);
  });

  it('the derived secret is a Standard Webhooks secret that changes with the nonce and the key', () => {
    const secret = webhookSecret('key', webhook_id, 'nonce-1');
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const signature = new Verifier(secret).sign('msg_1', new Date(), '{}');
    expect(signature).to.match(/^v1,/);
    expect(webhookSecret('key', webhook_id, 'nonce-2')).to.not.equal(secret);
    expect(webhookSecret('other key', webhook_id, 'nonce-1')).to.not.equal(secret);
  });
});

describe('webhook bodies (spec 2.13)', () => {
  it('a string becomes { text }; a json webhook sends any other JSON value as it is', () => {
    expect(webhookBody('json', 'price changed')).to.equal('{"text":"price changed"}');
    expect(webhookBody('json', { sku: 'A', price: 9.99 })).to.equal('{"sku":"A","price":9.99}');
    expect(webhookBody('json', [1, null])).to.equal('[1,null]');
  });
  it('a chat webhook always sends { text }: its text string, or the payload as indented JSON text', () => {
    expect(JSON.parse(webhookBody('chat', 'hi'))).to.deep.equal({ text: 'hi' });
    expect(JSON.parse(webhookBody('chat', { text: 'hi', blocks: [] }))).to.deep.equal({ text: 'hi' });
    expect(JSON.parse(webhookBody('chat', { sku: 'A' }))).to.deep.equal({ text: '{\n  "sku": "A"\n}' });
    expect(JSON.parse(webhookBody('chat', 42))).to.deep.equal({ text: '42' });
  });
  it('refuses what is not JSON and bodies over 100,000 bytes, naming the post', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => webhookBody('json', undefined, 'posts[0].payload')).to.throw(
      /posts\[0\]\.payload: undefined is not a JSON value/,
    );
    expect(() => webhookBody('json', cyclic)).to.throw(/not JSON-serializable/);
    expect(() => webhookBody('json', 10n)).to.throw(/not JSON-serializable/);
    expect(() => webhookBody('json', 'x'.repeat(MAX_BODY_BYTES))).to.throw(/at most 100000/);
  });
});

const answer = (r: Partial<AttemptResult> & { attempt?: number; response?: string }): DeliveryCommand => ({
  type: 'RecordAttempt',
  attempt: 1,
  started_at: at,
  duration_ms: 12,
  status: null,
  failure: null,
  retry_after: null,
  location: null,
  response: null,
  policy: DELIVERY_POLICY,
  at,
  ...r,
});
const attempt = (
  n: number,
  outcome: 'delivered' | 'retry' | 'failed',
  extra: Partial<Extract<WebhookDeliveryEvent, { type: 'WebhookAttemptRecorded' }>['data']> = {},
): WebhookDeliveryEvent => ({
  type: 'WebhookAttemptRecorded',
  data: {
    attempt: n,
    started_at: at,
    duration_ms: 12,
    status: null,
    response: null,
    error: null,
    outcome,
    next_attempt_at: null,
    at,
    ...extra,
  },
});
const later = (ms: number) => new Date(Date.parse(at) + ms).toISOString();

describe('webhook delivery decider (spec 4.13)', () => {
  it('is requested once', () => {
    given(webhookDeliveryDecider, [])
      .when({ type: 'RequestDelivery', ...requested.data })
      .then([requested]);
    given(webhookDeliveryDecider, [requested])
      .when({ type: 'RequestDelivery', ...requested.data })
      .then([]);
  });

  it('a 2xx delivers', () =>
    given(webhookDeliveryDecider, [requested])
      .when(answer({ status: 204, response: '' }))
      .then([attempt(1, 'delivered', { status: 204, response: '' })]));

  it('5xx, timeouts and network errors retry after 5 s, 20 s, 80 s, 320 s; the 5th attempt fails for good', () => {
    given(webhookDeliveryDecider, [requested])
      .when(answer({ status: 503 }))
      .then([attempt(1, 'retry', { status: 503, error: 'HTTP 503', next_attempt_at: later(5_000) })]);
    const timeout = { kind: 'timeout' as const, message: 'no answer within 10000 ms' };
    given(webhookDeliveryDecider, [requested, attempt(1, 'retry')])
      .when(answer({ attempt: 2, failure: timeout }))
      .then([attempt(2, 'retry', { error: timeout.message, next_attempt_at: later(20_000) })]);
    const network = { kind: 'network' as const, message: 'ECONNREFUSED: connect ECONNREFUSED' };
    given(webhookDeliveryDecider, [requested, attempt(1, 'retry'), attempt(2, 'retry'), attempt(3, 'retry')])
      .when(answer({ attempt: 4, failure: network }))
      .then([attempt(4, 'retry', { error: network.message, next_attempt_at: later(320_000) })]);
    const four = [1, 2, 3, 4].map((n) => attempt(n, 'retry'));
    given(webhookDeliveryDecider, [requested, ...four])
      .when(answer({ attempt: 5, status: 500 }))
      .then([attempt(5, 'failed', { status: 500, error: 'HTTP 500 (attempt 5 of 5: no retries left)' })]);
  });

  it('a 429 waits what Retry-After says (seconds or an HTTP date), capped at 10 minutes', () => {
    given(webhookDeliveryDecider, [requested])
      .when(answer({ status: 429, retry_after: '7' }))
      .then([attempt(1, 'retry', { status: 429, error: 'HTTP 429', next_attempt_at: later(7_000) })]);
    given(webhookDeliveryDecider, [requested])
      .when(answer({ status: 429, retry_after: new Date(Date.parse(at) + 42_000).toUTCString() }))
      .then([attempt(1, 'retry', { status: 429, error: 'HTTP 429', next_attempt_at: later(42_000) })]);
    given(webhookDeliveryDecider, [requested])
      .when(answer({ status: 429, retry_after: '86400' }))
      .then([attempt(1, 'retry', { status: 429, error: 'HTTP 429', next_attempt_at: later(600_000) })]);
    given(webhookDeliveryDecider, [requested])
      .when(answer({ status: 429, retry_after: 'soon' }))
      .then([attempt(1, 'retry', { status: 429, error: 'HTTP 429', next_attempt_at: later(5_000) })]);
  });

  it('other 4xx, redirects and refused addresses fail at once', () => {
    given(webhookDeliveryDecider, [requested])
      .when(answer({ status: 404, response: 'no such hook' }))
      .then([attempt(1, 'failed', { status: 404, response: 'no such hook', error: 'HTTP 404: not retried' })]);
    given(webhookDeliveryDecider, [requested])
      .when(answer({ status: 301, location: 'https://elsewhere.example/' }))
      .then([
        attempt(1, 'failed', {
          status: 301,
          error: 'HTTP 301: redirect to https://elsewhere.example/ not followed',
        }),
      ]);
    const refused = { kind: 'refused' as const, message: 'address not allowed: 127.0.0.1' };
    given(webhookDeliveryDecider, [requested])
      .when(answer({ failure: refused }))
      .then([attempt(1, 'failed', { error: refused.message })]);
  });

  it('a duplicate or late attempt records nothing; only a pending delivery is cancelled', () => {
    given(webhookDeliveryDecider, [requested, attempt(1, 'retry')])
      .when(answer({ attempt: 1, status: 500 }))
      .then([]);
    given(webhookDeliveryDecider, [requested, attempt(1, 'delivered')])
      .when(answer({ attempt: 2, status: 200 }))
      .then([]);
    given(webhookDeliveryDecider, [])
      .when(answer({ status: 200 }))
      .then([]);
    given(webhookDeliveryDecider, [requested])
      .when({ type: 'CancelDelivery', reason: 'the webhook was removed', at })
      .then([{ type: 'WebhookDeliveryCancelled', data: { reason: 'the webhook was removed', at } }]);
    given(webhookDeliveryDecider, [requested, attempt(1, 'failed')])
      .when({ type: 'CancelDelivery', reason: 'x', at })
      .then([]);
  });

  it('reads Retry-After as delta-seconds or an HTTP date; anything else is null', () => {
    const now = new Date(at);
    expect(retryAfterMs('120', now)).to.equal(120_000);
    expect(retryAfterMs(' 0 ', now)).to.equal(0);
    expect(retryAfterMs('Sun, 01 Mar 2026 10:01:00 GMT', now)).to.equal(60_000);
    expect(retryAfterMs('Sun, 01 Mar 2026 09:00:00 GMT', now), 'a date in the past: at once').to.equal(0);
    expect(retryAfterMs('-5', now)).to.equal(null);
    expect(retryAfterMs(null, now)).to.equal(null);
  });
});
