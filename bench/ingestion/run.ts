// Ingestion: `senders` concurrent senders POST `messages` signed marketplace messages to
// POST /ingest/:account_id (each sender one push at a time, as the marketplace sends per URL),
// `batch` messages per push (1: one message per push; more: a batch, as a queue hands them over),
// with a projector running. Prints events/s recorded in the store, the projection lag (from the
// 200 answer to the row visible in the events read model; every 50th message sampled) at p50/p99,
// and checks that every message is in the store and the read model exactly once. Each batch size
// of the list runs on a database of its own.
//
//   npm run build && npm run bench:ingestion [-- --messages 100000 --senders 4 --batch 1,10]
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { BATCH_CONTENT_TYPE, deliverySecret } from '../../src/domain/event/delivery.js';
import { newId } from '../../src/domain/shared/ids.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import { DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/app.js';
import { buildHttpServer } from '../../src/mcp/server.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { eventsProjection } from '../../src/projections/events/projection.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import { fmt, printMachine, startBenchStack, withDatabase } from '../support.js';

const { values: args } = parseArgs({
  options: {
    messages: { type: 'string', default: '100000' },
    senders: { type: 'string', default: '4' },
    batch: { type: 'string', default: '10' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const adminUrl = args['admin-url']!;
const total = Number(args.messages);
const senders = Number(args.senders);
const SAMPLE_EVERY = 50;
const SECRET = 'bench-ingestion-secret';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

const message = (id: string, at: Date, n: number) => ({
  NotificationVersion: '1.0',
  NotificationType: 'LISTINGS_ITEM_STATUS_CHANGE',
  PayloadVersion: '1.0',
  EventTime: at.toISOString(),
  Payload: {
    SellerId: 'A4YGSJW5RI50LH',
    MarketplaceId: 'ATVPDKIKX0DER',
    Asin: 'B0BUY2PPFK',
    Sku: `SKU-${n % 500}`,
    Status: ['BUYABLE'],
  },
  NotificationMetadata: { SubscriptionId: 'bench', PublishTime: at.toISOString(), NotificationId: id },
});

async function run(url: string, batch: number): Promise<boolean> {
  const stack = await startBenchStack(url, [accountsProjection, eventsProjection]);
  const { db, store, projector, simulator } = stack;
  const logger = pino({ level: 'silent' });
  const app = buildHttpServer({
    db,
    logger,
    authenticate: async () => null,
    demoUserId: newId(),
    store,
    ingestionSecret: SECRET,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    // an account the endpoint knows, connected the way the service connects one
    const account = newId();
    const endpoints = simulator.endpoints();
    await syncConnections(
      {
        ctx: { store, metadata: { actor: { kind: 'worker', id: 'bench' } } },
        lwa: createLwaClient({ tokenUrl: endpoints.lwaTokenUrl, ...DEFAULT_LWA_CLIENT }),
        endpoints,
        logger,
      },
      { user_id: newId(), account_id: account, credentials: 'seller', selling_refresh_token: 'Atzr|demo-seller' },
    );
    await projector.whenCaughtUp();
    const target = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/ingest/${account}`;
    const webhook = new Webhook(deliverySecret(SECRET, account));

    /** sampled message streams not yet seen in the read model → when their 200 came */
    const pending = new Map<string, number>();
    const lags: number[] = [];
    let sending = true;
    const watch = (async () => {
      while (sending || pending.size > 0) {
        await new Promise((r) => setTimeout(r, 10));
        if (pending.size === 0) continue;
        const streams = [...pending.keys()];
        const seen: { stream: string }[] = await db
          .withSchema('rm')
          .table('marketplace_events')
          .where('received_at', '>=', new Date(Math.min(...pending.values()) - 5_000))
          .whereIn('stream', streams)
          .select('stream');
        const now = performance.now();
        for (const { stream } of seen) {
          lags.push(now - pending.get(stream)!);
          pending.delete(stream);
        }
      }
    })();

    let next = 0;
    let recorded = 0;
    const statuses = new Map<number, number>();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: senders }, async () => {
        for (let n = next, size = Math.min(batch, total - n); n < total; n = next, size = Math.min(batch, total - n)) {
          next += size;
          const at = new Date();
          const ids = Array.from({ length: size }, () => randomUUID());
          const messages = ids.map((id, k) => message(id, at, n + k));
          const pushId = batch === 1 ? ids[0]! : `batch-${randomUUID()}`;
          const body = JSON.stringify(
            batch === 1 ? messages[0] : { messages: messages.map((m, k) => ({ id: ids[k], body: m })) },
          );
          const response = await fetch(target, {
            method: 'POST',
            headers: {
              'content-type': batch === 1 ? 'application/json' : BATCH_CONTENT_TYPE,
              'webhook-id': pushId,
              'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
              'webhook-signature': webhook.sign(pushId, at, body),
            },
            body,
          });
          const answer = (await response.json()) as { outcome?: string; outcomes?: Array<{ outcome?: string }> };
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          for (const o of answer.outcomes ?? [answer]) if (o.outcome === 'recorded') recorded++;
          const now = performance.now();
          ids.forEach((id, k) => (n + k) % SAMPLE_EVERY === 0 && pending.set(`event-${account}.${id}`, now));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    sending = false;
    await watch;
    await projector.whenCaughtUp();
    const [stored] = (
      await db.raw(
        `select count(*)::int as events, count(distinct stream_id)::int as streams from events where type = 'MarketplaceEventReceived'`,
      )
    ).rows;
    const [rows] = (
      await db.raw('select count(*)::int as rows, count(distinct stream)::int as streams from rm.marketplace_events')
    ).rows;
    lags.sort((a, b) => a - b);
    const ok =
      recorded === total &&
      stored.events === total &&
      stored.streams === total &&
      rows.rows === total &&
      rows.streams === total;
    console.log(
      `${fmt(total)} messages, ${senders} senders, ${batch === 1 ? 'one message per push' : `batches of ${batch}`}: ${seconds.toFixed(2)} s = ${fmt(total / seconds)} events/s recorded; answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    console.log(
      `projection lag (200 answer → row visible, ${lags.length} samples): p50 ${percentile(lags, 0.5).toFixed(0)} ms, p99 ${percentile(lags, 0.99).toFixed(0)} ms, max ${(lags.at(-1) ?? NaN).toFixed(0)} ms`,
    );
    console.log(
      `store: ${fmt(stored.events)} events in ${fmt(stored.streams)} streams; read model: ${fmt(rows.rows)} rows, ${fmt(rows.streams)} streams; lost ${total - Math.min(stored.streams, rows.streams)}, duplicated ${stored.events - stored.streams + rows.rows - rows.streams}: ${ok ? 'ok' : 'FAILED'}`,
    );
    return ok;
  } finally {
    await app.close();
    await stack.close();
  }
}

await printMachine(adminUrl);
let ok = true;
for (const batch of args.batch!.split(',').map(Number))
  ok = (await withDatabase(adminUrl, `bench_ingestion_${process.pid}_${batch}`, (url) => run(url, batch))) && ok;
process.exitCode = ok ? 0 : 1;
