import { randomUUID } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { notifyQueued } from '../../src/commands/mutation/dispatch-notifier.js';
import { createProducerRedis } from '../../src/infra/redis.js';
import { dispatchQueue, enqueueDispatch } from '../../src/workers/dispatch/queue.js';
import { dropRedisKeys, TEST_REDIS_PREFIX } from '../support/env.js';
import { eventually } from '../support/processes.js';

// Admission's notice to the dispatch workers through the real BullMQ queue: the job the sweep
// would add, added once; and when Redis is away the notice gives up (at once, or at its bound)
// with a warning instead of failing or holding up the call.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A logger that keeps what it writes. */
function capturing() {
  const lines: Array<Record<string, unknown>> = [];
  return {
    lines,
    logger: pino(
      { level: 'warn' },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    ),
  };
}

/** A notifier over a BullMQ queue on `url`, as the api role wires it. */
function notifierOn(url: string, prefix: string) {
  const redis = createProducerRedis(url);
  redis.on('error', () => undefined);
  const queue = dispatchQueue(redis, prefix);
  queue.on('error', () => undefined);
  return {
    redis,
    queue,
    notifier: { queued: (ids: readonly string[]) => enqueueDispatch(queue, ids) },
    async close() {
      redis.disconnect();
      await queue.close().catch(() => undefined);
    },
  };
}

/** A TCP relay to Redis that can be cut, so a connection made through it loses Redis mid-life. */
async function relayToRedis(): Promise<{ url: string; cut(): void }> {
  const { hostname, port } = new URL(REDIS_URL);
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port || 6379), hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('error', () => undefined).on('close', () => open.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  return listening(server, () => {
    for (const s of open) s.destroy();
  });
}

/** A server that accepts connections and never answers: a Redis that hangs. */
async function silentServer(): Promise<{ url: string; cut(): void }> {
  const open = new Set<Socket>();
  const server = createServer((s) => void open.add(s.on('error', () => undefined)));
  return listening(server, () => {
    for (const s of open) s.destroy();
  });
}

async function listening(server: Server, destroyAll: () => void): Promise<{ url: string; cut(): void }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      server.close();
      destroyAll();
    },
  };
}

describe('dispatch notice at admission', function () {
  this.timeout(20000);
  const prefix = `${TEST_REDIS_PREFIX}-notice-${randomUUID().slice(0, 8)}`;
  after(async () => dropRedisKeys(`${prefix}:*`));

  it("adds the sweep's job for each receipt: name dispatch, jobId the receipt id; a second notice adds nothing", async () => {
    const n = notifierOn(REDIS_URL, prefix);
    try {
      const ids = [randomUUID(), randomUUID()];
      const { logger, lines } = capturing();
      await notifyQueued(n.notifier, ids, logger);
      await notifyQueued(n.notifier, ids.slice(0, 1), logger);
      expect(lines).to.deep.equal([]);
      const jobs = await n.queue.getJobs(['waiting']);
      expect(jobs.map((j) => ({ name: j.name, id: j.id, data: j.data }))).to.have.deep.members(
        ids.map((id) => ({ name: 'dispatch', id, data: { receipt_id: id } })),
      );
    } finally {
      await n.close();
    }
  });

  it('Redis lost after start: the notice fails at once (no offline queue) and is a warning', async () => {
    const relay = await relayToRedis();
    const n = notifierOn(relay.url, prefix);
    try {
      const { logger, lines } = capturing();
      await notifyQueued(n.notifier, [randomUUID()], logger);
      expect(lines, 'delivered while Redis is there').to.deep.equal([]);
      relay.cut();
      await eventually(async () => (n.redis.status === 'ready' ? undefined : true), 'the connection to lose Redis');
      const ids = [randomUUID()];
      await notifyQueued(n.notifier, ids, logger);
      // failed at once (the offline-queue error), not at the notice's time bound
      expect(lines).to.have.length(1);
      expect(lines[0]!.receipt_ids).to.deep.equal(ids);
      expect(lines[0]!.msg).to.contain('the sweep will pick the receipts up');
      expect(lines[0]!.err).to.contain('enableOfflineQueue');
    } finally {
      await n.close();
    }
  });

  it('Redis that never answers: the notice gives up at its bound and is a warning', async () => {
    const silent = await silentServer();
    const n = notifierOn(silent.url, prefix);
    try {
      const { logger, lines } = capturing();
      await notifyQueued(n.notifier, [randomUUID()], logger, 300);
      expect(lines).to.have.length(1);
      expect(lines[0]!.err).to.contain('did not answer within 300 ms');
    } finally {
      await n.close();
      silent.cut();
    }
  });
});
