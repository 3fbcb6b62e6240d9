import { randomUUID } from 'node:crypto';
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import pino from 'pino';
import { Webhook as Verifier } from 'standardwebhooks';
import { aggregateStream } from '../../src/commands/shared/handler.js';
import type { WebhookCall } from '../../src/commands/webhook/context.js';
import { enqueueWebhookPosts, postDeliveryId, TEST_PAYLOAD } from '../../src/commands/webhook/posts.js';
import { configureWebhook, removeWebhook, setWebhookEnabled } from '../../src/commands/webhook/settings.js';
import { webhookDeliveryDecider } from '../../src/domain/webhook/delivery.js';
import type { WebhookDeliveryEvent, WebhookKind } from '../../src/domain/webhook/events.js';
import { createEventStore, type EventStore } from '../../src/eventstore/index.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { deleteKeys } from '../../src/infra/redis.js';
import { migrationSteps } from '../../src/migrations.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { Projector } from '../../src/projections/projector.js';
import { webhookDeliveriesProjection } from '../../src/projections/webhook/deliveries.js';
import { webhooksProjection } from '../../src/projections/webhook/projection.js';
import { enabledWebhookNames, listDeliveries } from '../../src/projections/webhook/queries.js';
import { createPoster } from '../../src/workers/webhook/post.js';
import { startWebhookDelivery, type RunningWebhooks } from '../../src/workers/webhook/queue.js';
import { eventually } from '../support/processes.js';
import { assertRebuildEqualsLive } from '../support/projections.js';
import { sleep, startReceiver, type Receiver } from '../support/receiver.js';
import { project } from '../support/seed.js';

// Webhook delivery through the real queue and worker (BullMQ on Redis), event store, projector and
// local HTTP receivers (spec 2.13, 4.13, 8). Three workers, each on a Redis prefix of its own:
// `open` lets deliveries reach loopback (as tests must) with a 1 s timeout and quick backoff,
// `closed` has the operator setting off, `standard` keeps spec 8's 10 s timeout.

const QUICK = { maxAttempts: 5, backoffMs: 100, backoffFactor: 2, maxRetryAfterMs: 5_000 };
const SIGNING_KEY = 'test-signing-key';
const logger = pino({ level: 'silent' });

/** DNS of the tests: any `*.rebind.test` name resolves to 127.0.0.1, as a rebinding attacker's name would. */
const lookup: LookupFunction = (hostname, options, callback) => {
  if (!hostname.endsWith('.rebind.test')) return dns.lookup(hostname, options, callback);
  const cb = callback as (...args: unknown[]) => void;
  if (options.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
  else cb(null, '127.0.0.1', 4);
};

type Attempt = Extract<WebhookDeliveryEvent, { type: 'WebhookAttemptRecorded' }>['data'];

describe('webhook delivery (worker, local receivers)', function () {
  this.timeout(60_000);
  let db: Knex;
  let store: EventStore;
  let redis: Redis;
  let projector: Projector;
  let prefix: string;
  const workers: Record<'open' | 'closed' | 'standard', RunningWebhooks> = {} as never;
  const receivers: Receiver[] = [];
  const account = randomUUID();
  const call = (allowPrivateNetworks: boolean): WebhookCall => ({
    store,
    db,
    by: 'test',
    actor: { kind: 'user', id: 'test' },
    signingKey: SIGNING_KEY,
    allowPrivateNetworks,
  });

  const receiver = async (answer?: Parameters<typeof startReceiver>[0]) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };
  let named = 0;
  const webhook = async (
    url: string,
    o: { kind?: WebhookKind; headers?: Record<string, string>; allowHttp?: boolean } = {},
  ) => {
    const name = `hook${++named}`;
    const { secret } = await configureWebhook(call(o.allowHttp ?? true), {
      account_id: account,
      name,
      url,
      headers: o.headers ?? {},
      kind: o.kind ?? 'json',
    });
    return { name, secret };
  };
  const post = async (via: RunningWebhooks, name: string, payload: unknown, runId: string = randomUUID()) => {
    const cause = { automationId: randomUUID(), automationVersion: 3, eventId: randomUUID(), runId };
    const { deliveries } = await via.enqueueWebhookPosts({
      accountId: account,
      posts: [{ webhook: name, payload }],
      cause,
    });
    return deliveries[0]!.delivery_id;
  };
  /** the delivery's attempts once it has ended */
  const ended = async (delivery_id: string, timeoutMs = 30_000) =>
    eventually(
      async () => {
        const { state, events } = await aggregateStream(store, webhookDeliveryDecider, delivery_id);
        if (state.status === 'pending') return undefined;
        return {
          status: state.status,
          attempts: events.filter((e) => e.type === 'WebhookAttemptRecorded').map((e) => e.data as Attempt),
        };
      },
      `delivery ${delivery_id} to end`,
      timeoutMs,
    );
  const verified = (secret: string, r: Receiver, n: number) =>
    new Verifier(secret).verify(r.received[n]!.body, r.received[n]!.headers as Record<string, string>);

  before(async function () {
    this.timeout(30_000);
    prefix = `${process.env.REDIS_PREFIX}-webhook-${randomUUID().slice(0, 8)}`;
    db = createDb(process.env.DATABASE_URL!);
    store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
    const read = [webhooksProjection, webhookDeliveriesProjection];
    await migrate(db, migrationSteps([accountsProjection, ...read], { eventStoreInPostgres: true }));
    await project(db, [
      {
        type: 'AccountRegistered',
        data: { account_id: account, user_id: randomUUID(), name: 'Shop', entity_type: 'seller' },
      },
    ]);
    projector = new Projector(db, store, read, { pollMs: 20 });
    projector.start();
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    const start = (name: string, o: { allowPrivateNetworks: boolean; timeoutMs?: number; policy?: typeof QUICK }) =>
      startWebhookDelivery({
        connection: redis,
        prefix: `${prefix}-${name}`,
        db,
        store,
        signingKey: SIGNING_KEY,
        sweepEveryMs: 600_000,
        logger,
        lookup,
        policy: QUICK,
        ...o,
      });
    workers.open = start('open', { allowPrivateNetworks: true, timeoutMs: 1_000 });
    workers.closed = start('closed', { allowPrivateNetworks: false, timeoutMs: 1_000 });
    workers.standard = start('standard', { allowPrivateNetworks: true, policy: { ...QUICK, maxAttempts: 1 } });
  });

  after(async () => {
    for (const w of Object.values(workers)) await w.close();
    for (const r of receivers) await r.close();
    await deleteKeys(redis, `${prefix}-*`);
    redis.disconnect();
    await projector.stop();
    await store.close();
    await db.destroy();
  });

  it('posts JSON with the configured headers, signed: the signature verifies with the secret shown once', async () => {
    const r = await receiver((_, res) => res.writeHead(200).end('thanks'));
    const { name, secret } = await webhook(r.url, { headers: { Authorization: 'Bearer abc' } });
    const id = await post(workers.open, name, { sku: 'A-1', price: 19.99 });
    const { status, attempts } = await ended(id);
    expect(status).to.equal('delivered');
    expect(attempts).to.have.length(1);
    expect(attempts[0]).to.include({ attempt: 1, status: 200, response: 'thanks', outcome: 'delivered', error: null });
    const { headers, body } = r.received[0]!;
    expect(JSON.parse(body)).to.deep.equal({ sku: 'A-1', price: 19.99 });
    expect(headers).to.include({
      'content-type': 'application/json',
      authorization: 'Bearer abc',
      'x-service-delivery-id': id,
      'webhook-id': id,
    });
    expect(verified(secret, r, 0)).to.deep.equal({ sku: 'A-1', price: 19.99 });
    const forged = { ...headers, 'webhook-signature': headers['webhook-signature']!.toString().replace(/.$/, '') };
    expect(() => new Verifier(secret).verify(body, forged as unknown as Record<string, string>)).to.throw();
  });

  it('retries a 500 under the same delivery id, each attempt freshly signed', async () => {
    const r = await receiver((n, res) => res.writeHead(n === 0 ? 500 : 200).end(n === 0 ? 'boom' : 'ok'));
    const { name, secret } = await webhook(r.url);
    const id = await post(workers.open, name, 'price dropped');
    const { status, attempts } = await ended(id);
    expect(status).to.equal('delivered');
    expect(attempts.map((a) => [a.status, a.outcome, a.response])).to.deep.equal([
      [500, 'retry', 'boom'],
      [200, 'delivered', 'ok'],
    ]);
    expect(r.received.map((x) => x.headers['x-service-delivery-id'])).to.deep.equal([id, id]);
    expect(verified(secret, r, 0)).to.deep.equal({ text: 'price dropped' });
    expect(verified(secret, r, 1)).to.deep.equal({ text: 'price dropped' });
  });

  it("honours a 429's Retry-After (2 s, where the backoff would wait 100 ms)", async () => {
    const r = await receiver((n, res) =>
      n === 0 ? res.writeHead(429, { 'retry-after': '2' }).end() : res.writeHead(200).end(),
    );
    const { name } = await webhook(r.url);
    const id = await post(workers.open, name, { n: 1 });
    const { attempts } = await ended(id);
    expect(attempts.map((a) => a.status)).to.deep.equal([429, 200]);
    expect(Date.parse(attempts[0]!.next_attempt_at!) - Date.parse(attempts[0]!.at)).to.equal(2_000);
    expect(r.received[1]!.at - r.received[0]!.at).to.be.at.least(1_900);
  });

  it('does not retry a 404, and keeps the first 10 KB of the response', async () => {
    const r = await receiver((_, res) => res.writeHead(404).end('é'.repeat(10_000)));
    const { name } = await webhook(r.url);
    const id = await post(workers.open, name, { n: 2 });
    const { status, attempts } = await ended(id);
    expect(status).to.equal('failed');
    expect(attempts).to.have.length(1);
    expect(attempts[0]).to.include({ status: 404, outcome: 'failed', error: 'HTTP 404: not retried' });
    expect(attempts[0]!.response, '10,240 bytes of two-byte characters: 5,120 of them').to.equal('é'.repeat(5_120));
    await sleep(500); // five backoffs' worth: no second request comes
    expect(r.received).to.have.length(1);
  });

  it('gives up on a receiver that hangs past the timeout and retries it', async () => {
    const r = await receiver((n, res) => {
      if (n > 0) res.writeHead(200).end(); // the first request is left hanging
    });
    const { name } = await webhook(r.url);
    const id = await post(workers.open, name, { n: 3 });
    const { status, attempts } = await ended(id);
    expect(status).to.equal('delivered');
    expect(attempts[0]).to.include({ status: null, outcome: 'retry', error: 'no answer within 1000 ms' });
    expect(attempts[0]!.duration_ms).to.be.at.least(1_000);
    expect(r.received.map((x) => x.headers['x-service-delivery-id'])).to.deep.equal([id, id]);
  });

  it('waits 10 s for an answer by default (spec 8)', async function () {
    this.timeout(60_000);
    const r = await receiver(() => undefined); // never answers
    const { name } = await webhook(r.url);
    const id = await post(workers.standard, name, { n: 4 });
    const { status, attempts } = await ended(id, 45_000);
    expect(status).to.equal('failed');
    expect(attempts[0]!.error).to.equal('no answer within 10000 ms (attempt 1 of 1: no retries left)');
    expect(attempts[0]!.duration_ms).to.be.within(10_000, 20_000);
  });

  it('never follows a redirect: the attempt fails, and the redirect target gets nothing', async () => {
    const target = await receiver();
    const r = await receiver((_, res) => res.writeHead(302, { location: target.url }).end());
    const { name } = await webhook(r.url);
    const id = await post(workers.open, name, { n: 5 });
    const { status, attempts } = await ended(id);
    expect(status).to.equal('failed');
    expect(attempts[0]!.error).to.equal(`HTTP 302: redirect to ${target.url} not followed`);
    await sleep(300);
    expect(r.received).to.have.length(1);
    expect(target.received).to.have.length(0);
  });

  describe('with private networks not allowed (the production setting)', () => {
    // configured while private networks were allowed (configuration refuses literal private
    // addresses now): what the delivery itself refuses, on the address it connects to
    const refusedHere = async (url: string) => {
      const { name } = await webhook(url, { allowHttp: true });
      const id = await post(workers.closed, name, { n: 6 });
      const { status, attempts } = await ended(id);
      expect(status).to.equal('failed');
      expect(attempts, 'a refused address is not retried').to.have.length(1);
      expect(attempts[0]!.status).to.equal(null);
      return attempts[0]!.error!;
    };

    it('refuses a receiver on a loopback address, without a byte sent', async () => {
      const r = await receiver();
      const port = new URL(r.url).port;
      expect(await refusedHere(`https://127.0.0.1:${port}/events`)).to.match(
        /^address not allowed .*127\.0\.0\.1.*private IP address/,
      );
      expect(await refusedHere(`https://[::1]:${port}/events`)).to.match(/^address not allowed .*::1/);
      expect(r.received).to.have.length(0);
    });

    it('refuses a host name that resolves to a loopback address when it connects (localhost, a rebinding name)', async () => {
      const r = await receiver();
      const port = new URL(r.url).port;
      expect(await refusedHere(`https://localhost:${port}/events`)).to.match(/host:localhost.*not allowed/);
      expect(await refusedHere(`https://shop.rebind.test:${port}/events`)).to.match(
        /127\.0\.0\.1.*host:shop\.rebind\.test.*not allowed/,
      );
      expect(r.received).to.have.length(0);
    });

    it('refuses metadata, link-local, CGNAT, private and mapped loopback addresses', async () => {
      const poster = createPoster({ allowPrivateNetworks: false, timeoutMs: 1_000 });
      try {
        for (const host of [
          '169.254.169.254',
          '100.64.0.1',
          '10.0.0.1',
          '192.168.1.1',
          '0.0.0.0',
          '[fd00::1]',
          '[::ffff:127.0.0.1]',
        ]) {
          const answer = await poster.post(`https://${host}/latest/meta-data`, {}, '{}');
          expect(answer.failure?.kind, host).to.equal('refused');
        }
      } finally {
        poster.close();
      }
    });

    it('refuses a plain http URL configured while the setting was on', async () => {
      const r = await receiver();
      expect(await refusedHere(r.url)).to.equal('http: URLs are not delivered to; use https');
      expect(r.received).to.have.length(0);
    });

    it('the same rebinding name is delivered to where the setting allows it: the address checked is the one connected to', async () => {
      const r = await receiver();
      const { name } = await webhook(`http://shop.rebind.test:${new URL(r.url).port}/events`);
      const { status } = await ended(await post(workers.open, name, { n: 7 }));
      expect(status).to.equal('delivered');
      expect(r.received).to.have.length(1);
    });
  });

  it("a rerun of the same run's posts posts nothing twice; a new run posts under a new id", async () => {
    const r = await receiver();
    const { name } = await webhook(r.url);
    const cause = { automationId: randomUUID(), automationVersion: 1, eventId: randomUUID(), runId: 'run-1' };
    const posts = [
      { webhook: name, payload: 'first' },
      { webhook: name, payload: 'second' },
    ];
    const once = await workers.open.enqueueWebhookPosts({ accountId: account, posts, cause });
    const twice = await workers.open.enqueueWebhookPosts({ accountId: account, posts, cause });
    expect(twice.deliveries).to.deep.equal(once.deliveries);
    const rerun = await workers.open.enqueueWebhookPosts({
      accountId: account,
      posts,
      cause: { ...cause, runId: 'run-2' },
    });
    const ids = [...once.deliveries, ...rerun.deliveries].map((d) => d.delivery_id);
    expect(new Set(ids).size).to.equal(4);
    for (const id of ids) expect((await ended(id)).status).to.equal('delivered');
    await sleep(300);
    expect(r.received.map((x) => x.headers['x-service-delivery-id']).sort()).to.deep.equal([...ids].sort());
  });

  it('a chat webhook always gets { text }', async () => {
    const r = await receiver();
    const { name } = await webhook(r.url, { kind: 'chat' });
    await ended(await post(workers.open, name, { sku: 'A-1' }));
    await ended(await post(workers.open, name, 'plain words'));
    expect(r.received.map((x) => JSON.parse(x.body))).to.deep.equal([
      { text: '{\n  "sku": "A-1"\n}' },
      { text: 'plain words' },
    ]);
  });

  it('refuses a batch with a payload that is not JSON, recording nothing', async () => {
    const r = await receiver();
    const { name } = await webhook(r.url);
    const cause = { automationId: randomUUID(), automationVersion: 1, eventId: randomUUID(), runId: randomUUID() };
    const posts = [
      { webhook: name, payload: 'fine' },
      { webhook: name, payload: undefined },
    ];
    const refused = await workers.open
      .enqueueWebhookPosts({ accountId: account, posts, cause })
      .catch((e: unknown) => e);
    expect(refused).to.include({ code: 'invalid' });
    expect((refused as Error).message).to.match(/posts\[1\]\.payload: undefined is not a JSON value/);
    const first = await aggregateStream(store, webhookDeliveryDecider, postDeliveryId(cause, 0));
    expect(first.revision, 'not even the valid post is recorded').to.equal(null);
    await sleep(300);
    expect(r.received).to.have.length(0);
  });

  it('skips a disabled webhook and offers only enabled names to automations; a send test still reaches it', async () => {
    const r = await receiver();
    const { name, secret } = await webhook(r.url);
    const { position } = await setWebhookEnabled(call(true), account, name, false);
    await projector.whenCaughtUp(position);
    expect(await enabledWebhookNames(db, account)).to.not.include(name);
    const cause = { automationId: randomUUID(), automationVersion: 1, eventId: randomUUID() };
    const result = await workers.open.enqueueWebhookPosts({
      accountId: account,
      posts: [{ webhook: name, payload: 'x' }],
      cause,
    });
    expect(result).to.deep.equal({
      deliveries: [],
      skipped: [{ index: 0, webhook: name, reason: `no enabled webhook named '${name}'` }],
    });
    const { delivery_id } = await workers.open.sendTest({ accountId: account, name, by: 'ops' });
    expect((await ended(delivery_id)).status).to.equal('delivered');
    expect(r.received).to.have.length(1);
    expect(verified(secret, r, 0)).to.deep.equal(TEST_PAYLOAD);
  });

  it('the sweep enqueues a delivery whose notice was lost; a webhook removed meanwhile ends it cancelled', async () => {
    const r = await receiver();
    const kept = await webhook(r.url);
    const gone = await webhook(r.url);
    const lost = { store, notifier: { requested: async () => undefined }, logger };
    const cause = { automationId: randomUUID(), automationVersion: 1, eventId: randomUUID() };
    const posts = [
      { webhook: kept.name, payload: 'kept' },
      { webhook: gone.name, payload: 'gone' },
    ];
    const { deliveries } = await enqueueWebhookPosts(lost, { accountId: account, posts, cause });
    await removeWebhook(call(true), account, gone.name);
    await projector.whenCaughtUp(undefined);
    await sleep(300);
    expect(r.received, 'nothing is posted before the sweep').to.have.length(0);
    await workers.open.sweep();
    expect((await ended(deliveries[0]!.delivery_id)).status).to.equal('delivered');
    expect((await ended(deliveries[1]!.delivery_id)).status).to.equal('cancelled');
    expect(r.received.map((x) => JSON.parse(x.body))).to.deep.equal([{ text: 'kept' }]);
    await projector.whenCaughtUp(undefined);
    const listed = await listDeliveries(db, account, { limit: 100 });
    const cancelled = listed.find((d) => d.delivery_id === deliveries[1]!.delivery_id)!;
    expect(cancelled).to.include({
      status: 'cancelled',
      last_error: 'the webhook was removed',
      webhook_name: gone.name,
    });
    expect(cancelled.attempts).to.deep.equal([]);
  });

  it('the read models rebuilt from the log equal the live ones', async () => {
    await projector.whenCaughtUp(undefined);
    await assertRebuildEqualsLive(db, store, webhooksProjection);
    await assertRebuildEqualsLive(db, store, webhookDeliveriesProjection);
  });
});
