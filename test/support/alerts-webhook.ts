import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { configureWebhook } from '../../src/commands/webhook/settings.js';
import { deleteKeys } from '../../src/infra/redis.js';
import { startWebhookDelivery, type RunningWebhooks } from '../../src/workers/webhook/queue.js';
import type { AutomationWorld } from './automation-world.js';
import { startReceiver, type Receiver } from './receiver.js';

// An account's `alerts` webhook pointing at a local receiver, with the Redis delivery queue running:
// what a live run posts arrives in `receiver.received`, signed with `secret`.

export interface AlertsWebhook {
  webhooks: RunningWebhooks;
  receiver: Receiver;
  secret: string;
  close(): Promise<void>;
}

export async function startAlertsWebhook(
  w: Pick<AutomationWorld, 'h'>,
  account_id: string,
  signingKey: string,
  logger: Logger,
): Promise<AlertsWebhook> {
  const prefix = `${process.env.REDIS_PREFIX}-alerts-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const webhooks = startWebhookDelivery({
    connection: redis,
    prefix,
    db: w.h.db,
    store: w.h.store,
    signingKey,
    allowPrivateNetworks: true,
    sweepEveryMs: 600_000,
    logger,
  });
  const receiver = await startReceiver();
  const { secret } = await configureWebhook(
    {
      store: w.h.store,
      db: w.h.db,
      by: 'test',
      actor: { kind: 'user', id: 'test' },
      signingKey,
      allowPrivateNetworks: true,
    },
    { account_id, name: 'alerts', url: receiver.url, headers: {}, kind: 'json' },
  );
  return {
    webhooks,
    receiver,
    secret,
    async close() {
      await webhooks.close();
      await receiver.close();
      await deleteKeys(redis, `${prefix}:*`);
      redis.disconnect();
    },
  };
}
