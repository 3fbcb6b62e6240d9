import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import pino from 'pino';
import { Webhook as Verifier } from 'standardwebhooks';
import { TEST_PAYLOAD } from '../../src/commands/webhook/posts.js';
import { createEventStore, type EventStore } from '../../src/eventstore/index.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { deleteKeys } from '../../src/infra/redis.js';
import { startWebhookDelivery, type RunningWebhooks } from '../../src/workers/webhook/queue.js';
import { cli } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { prepareReadModels, project } from '../support/seed.js';

// The operator CLI's webhook commands end to end: each a process of its own on the run's database
// and a Redis prefix of this test's, with a delivery worker in this process (the worker role's).

describe('webhook CLI (add, list, test, rotate-secret, update, deliveries, remove)', function () {
  // every command is a Node process that migrates before it acts: seconds each on a loaded machine
  this.timeout(300_000);
  const signingKey = 'cli-test-signing-key';
  // the run's database and Redis prefix are set by the root hooks, after this file loads
  let prefix: string;
  let env: Record<string, string>;
  const account = randomUUID();
  let db: Knex;
  let store: EventStore;
  let redis: Redis;
  let worker: RunningWebhooks;
  let receiver: Receiver;
  const webhook = (...args: string[]) => cli(['webhook', ...args, '--account', account], env);
  const failure = (...args: string[]) =>
    webhook(...args).then(
      () => expect.fail('the command should fail'),
      (err: Error) => err.message,
    );

  before(async () => {
    prefix = `${process.env.REDIS_PREFIX}-webhook-cli-${randomUUID().slice(0, 8)}`;
    env = { REDIS_PREFIX: prefix, WEBHOOK_SIGNING_KEY: signingKey, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    db = createDb(process.env.DATABASE_URL!);
    store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
    await prepareReadModels(db);
    await project(db, [
      {
        type: 'AccountRegistered',
        data: { account_id: account, user_id: randomUUID(), name: 'Shop', entity_type: 'seller' },
      },
    ]);
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    worker = startWebhookDelivery({
      connection: redis,
      prefix,
      db,
      store,
      signingKey,
      allowPrivateNetworks: true,
      sweepEveryMs: 600_000,
      logger: pino({ level: 'silent' }),
    });
    receiver = await startReceiver();
  });

  after(async () => {
    await worker.close();
    await receiver.close();
    await deleteKeys(redis, `${prefix}:*`);
    redis.disconnect();
    await store.close();
    await db.destroy();
  });

  it('configures a webhook, shows its secret once, lists it without header values, and sends a signed test', async () => {
    const added = await webhook(
      'add',
      '--name',
      'alerts',
      '--url',
      receiver.url,
      '--header',
      'X-Team: ops-secret',
      '--type',
      'chat',
    );
    const secret = /signing secret \(shown once\): (whsec_\S+)/.exec(added)![1]!;
    const listed = await webhook('list');
    expect(listed).to.equal(`alerts  chat  enabled  ${receiver.url}  headers: X-Team`);
    expect(listed).to.not.contain('ops-secret');

    const tested = await webhook('test', '--name', 'alerts');
    const deliveryId = /test delivery (\S+)/.exec(tested)![1]!;
    expect(tested).to.match(/attempt 1: delivered: HTTP 200 in \d+ ms/);
    expect(receiver.received).to.have.length(1);
    const { headers, body } = receiver.received[0]!;
    expect(headers).to.include({ 'x-team': 'ops-secret', 'x-service-delivery-id': deliveryId });
    expect(new Verifier(secret).verify(body, headers as Record<string, string>)).to.deep.equal({
      text: TEST_PAYLOAD.text,
    });

    const rotated = /signing secret \(shown once\): (whsec_\S+)/.exec(
      await webhook('rotate-secret', '--name', 'alerts'),
    )![1]!;
    expect(rotated).to.not.equal(secret);
    await webhook('test', '--name', 'alerts');
    const second = receiver.received[1]!;
    expect(new Verifier(rotated).verify(second.body, second.headers as Record<string, string>)).to.deep.equal({
      text: TEST_PAYLOAD.text,
    });
    expect(() => new Verifier(secret).verify(second.body, second.headers as Record<string, string>)).to.throw();

    const activity = (await webhook('deliveries', '--name', 'alerts')).split('\n');
    expect(activity.filter((l) => /alerts {2}delivered {2}\S+ {2}\(test\)$/.test(l))).to.have.length(2);
    expect(activity.filter((l) => /^ {2}attempt 1 {2}delivered {2}200 {2}\d+ ms$/.test(l))).to.have.length(2);
  });

  it('updates, disables and removes it', async () => {
    await webhook('update', '--name', 'alerts', '--new-name', 'ops', '--clear-headers', '--type', 'json', '--disable');
    expect(await webhook('list')).to.equal(`ops  json  disabled  ${receiver.url}  no headers`);
    expect(await webhook('update', '--name', 'ops', '--disable')).to.equal('disabled (nothing changed)');
    expect(await webhook('remove', '--name', 'ops')).to.equal('removed');
    expect(await webhook('list')).to.equal('');
  });

  it('answers bad input with the error code and a detail naming the value', async () => {
    expect(await failure('add', '--name', 'my-hook', '--url', receiver.url)).to.match(
      /invalid: name: 'my-hook' is not a valid JavaScript identifier/,
    );
    expect(await failure('add', '--name', 'h', '--url', receiver.url, '--header', 'Connection: close')).to.match(
      /invalid: headers: 'Connection' is a hop-by-hop header/,
    );
    expect(await failure('test', '--name', 'nope')).to.match(/not_found: name: no webhook named 'nope'/);
    const off = await cli(['webhook', 'add', '--account', account, '--name', 'h', '--url', receiver.url], {
      ...env,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
    }).catch((err: Error) => err.message);
    expect(off).to.match(/invalid: url: .* must use https \(plain http is allowed only/);
    expect(await failure('add', '--name', 'h', '--url', receiver.url, '--type', 'xml')).to.match(
      /--type: 'xml' is neither json nor chat/,
    );
    const stranger = await cli(
      ['webhook', 'add', '--account', randomUUID(), '--name', 'h', '--url', receiver.url],
      env,
    ).catch((err: Error) => err.message);
    expect(stranger).to.match(/account_not_found: account: no account/);
  });
});
