import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import pino from 'pino';
import { executeDispatchControlCommand } from '../../src/commands/dispatch-control/execute.js';
import { executeMutationCommand } from '../../src/commands/mutation/execute.js';
import type { Action, TargetType } from '../../src/domain/mutation/payloads.js';
import { listingId } from '../../src/domain/observation/ids.js';
import { newId } from '../../src/domain/shared/ids.js';
import { createEventStore, type EventStore, type Position } from '../../src/eventstore/index.js';
import { createDb } from '../../src/infra/db.js';
import { deleteKeys } from '../../src/infra/redis.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import type { AppliedChange } from '../../src/marketplace/simulator/ads/sp-state.js';
import type { Simulator } from '../../src/marketplace/simulator/app.js';
import { DEFAULT_LWA_CLIENT } from '../../src/marketplace/simulator/app.js';
import type { Submission } from '../../src/marketplace/simulator/selling/listings-state.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { mutationsProjection } from '../../src/projections/mutations/projection.js';
import { getReceipt, type Receipt } from '../../src/projections/mutations/queries.js';
import { Projector } from '../../src/projections/projector.js';
import { dispatchClients } from '../../src/workers/dispatch/clients.js';
import { startDispatch, type RunningDispatch } from '../../src/workers/dispatch/queue.js';
import { eventually } from '../support/processes.js';
import { ADS_TOKEN, adsChanges, listingSubmissions, SELLING_TOKEN, startSimulator } from '../support/marketplace.js';

// A dispatch test bench: the real event store, projector, Redis/BullMQ and dispatch worker
// against the simulator over HTTP. `clock` is the service's and the simulator's clock; tests
// move it forward to pass reconciliation's 10 minutes.

export interface Bench {
  db: Knex;
  store: EventStore;
  simulator: Simulator;
  baseUrl: string;
  redis: Redis;
  prefix: string;
  account: string;
  clock: { offset: number; now(): number };
  dispatch: RunningDispatch | null;
  /** the receipts read model's projector (a test may stop it to hold the read model back) */
  projector: Projector;
  startWorker(options?: {
    concurrency?: number;
    sweepEveryMs?: number;
    shownWithinMs?: number;
  }): Promise<RunningDispatch>;
  admit(o: {
    target: { type: TargetType; id: string };
    provider: Record<string, string>;
    action: Action;
    payload: Record<string, unknown>;
  }): Promise<string>;
  /**
   * A listing as a patch names it: its local id is the account's (as in the service), so a flag
   * or a queue left by another bench sharing the database (another test file) is not this one's.
   */
  listing(sku: string, marketplaceId: string): ListingTarget;
  /** waits until the read model shows every receipt admitted so far */
  caughtUp(): Promise<void>;
  receipt(id: string): Promise<Receipt>;
  /** waits until the receipt's status is one of `statuses` */
  until(id: string, statuses: string[], timeoutMs?: number): Promise<Receipt>;
  adsChanges(): Promise<AppliedChange[]>;
  listingSubmissions(): Promise<Submission[]>;
  fault(rule: Record<string, unknown>): Promise<void>;
  setAutomation(campaignLocalId: string, enabled: boolean): Promise<void>;
  setListingBlock(listingId: string, blocked: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface ListingTarget {
  target: { type: 'Listing'; id: string };
  provider: { sku: string; marketplaceId: string; sellerId: string };
}

/** A Listings Items patch replacing the listing's price in a marketplace (USD, every audience). */
export const pricePatch = (marketplace_id: string, price: number) => ({
  op: 'replace',
  path: '/attributes/purchasable_offer',
  value: [{ marketplace_id, currency: 'USD', audience: 'ALL', our_price: [{ schedule: [{ value_with_tax: price }] }] }],
});

export async function startBench(
  options: { worker?: boolean; latencyMs?: number; databaseUrl?: string } = {},
): Promise<Bench> {
  const clock = { offset: 0, now: () => Date.now() + clock.offset };
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL!;
  const db = createDb(databaseUrl);
  const store = createEventStore({ DATABASE_URL: databaseUrl });
  // accounts too: the dispatcher reads which credential set an account's connections name
  await migrate(db, migrationSteps([accountsProjection, mutationsProjection], { eventStoreInPostgres: true }));
  const projector = new Projector(db, store, [mutationsProjection], { pollMs: 20 });
  projector.start();
  const { simulator, baseUrl } = await startSimulator({
    now: clock.now,
    ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}),
  });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const prefix = `${process.env.REDIS_PREFIX}-dispatch-${randomUUID().slice(0, 8)}`;
  const account = newId();
  const ctx = { store, metadata: { actor: { kind: 'worker' as const, id: 'test' } } };
  let last: Position | null = null;
  let admitted = 0;
  const lwa = createLwaClient({ tokenUrl: simulator.endpoints().lwaTokenUrl, ...DEFAULT_LWA_CLIENT });

  const bench: Bench = {
    db,
    store,
    simulator,
    baseUrl,
    redis,
    prefix,
    account,
    clock,
    dispatch: null,
    projector,
    async startWorker({
      concurrency = 4,
      sweepEveryMs = 250,
      shownWithinMs,
    }: { concurrency?: number; sweepEveryMs?: number; shownWithinMs?: number } = {}) {
      bench.dispatch = await startDispatch({
        connection: redis,
        prefix,
        db,
        ctx: { store, metadata: { actor: { kind: 'worker', id: 'dispatch' } } },
        ...dispatchClients({
          db,
          lwa,
          endpoints: simulator.endpoints(),
          credentials: () => ({ selling_refresh_token: SELLING_TOKEN, ads_refresh_token: ADS_TOKEN }),
          timeoutMs: 1000,
        }),
        now: clock.now,
        backoff: { baseMs: 20, maxMs: 200 },
        batchSize: 10,
        reconcileEveryMs: 60_000,
        sweepEveryMs,
        concurrency,
        ...(shownWithinMs === undefined ? {} : { shownWithinMs }),
        logger: pino({ level: process.env.DISPATCH_TEST_LOG ?? 'silent' }),
      });
      return bench.dispatch;
    },
    async admit(o) {
      const receipt_id = newId();
      // admission order is created_at order: one millisecond apart
      const created_at = new Date(clock.now() + admitted++).toISOString();
      const result = await executeMutationCommand(ctx, {
        type: 'AdmitMutation',
        receipt_id,
        account_id: account,
        idempotency: null,
        blocked: null,
        created_at,
        ...o,
      });
      last = result.position ?? last;
      return receipt_id;
    },
    listing: (sku, marketplaceId) => ({
      target: { type: 'Listing', id: listingId(account, marketplaceId, sku) },
      provider: { sku, marketplaceId, sellerId: simulator.seller.merchantId },
    }),
    async caughtUp() {
      await projector.whenCaughtUp(last);
    },
    async receipt(id) {
      return (await getReceipt(db, [account], id))!.receipt;
    },
    async until(id, statuses, timeoutMs = 60_000) {
      return eventually(
        async () => {
          const r = await getReceipt(db, [account], id);
          return r && statuses.includes(r.receipt.status) ? r.receipt : undefined;
        },
        `receipt ${id} to be ${statuses.join(' or ')}`,
        timeoutMs,
      );
    },
    adsChanges: () => adsChanges(baseUrl),
    listingSubmissions: () => listingSubmissions(baseUrl),
    async fault(rule) {
      const response = await fetch(`${baseUrl}/_sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(rule),
      });
      if (response.status !== 201) throw new Error(`fault refused: ${await response.text()}`);
    },
    async setAutomation(campaign_id, enabled) {
      const result = await executeDispatchControlCommand(ctx, {
        type: 'SetCampaignAutomation',
        account_id: account,
        campaign_id,
        enabled,
        at: new Date(clock.now()).toISOString(),
      });
      last = result.position ?? last;
    },
    async setListingBlock(listing_id, blocked) {
      const result = await executeDispatchControlCommand(ctx, {
        type: 'SetListingBlock',
        account_id: account,
        listing_id,
        blocked,
        at: new Date(clock.now()).toISOString(),
      });
      last = result.position ?? last;
    },
    async close() {
      await bench.dispatch?.close();
      await deleteKeys(redis, `${prefix}:*`);
      redis.disconnect();
      await projector.stop();
      await simulator.close();
      await store.close();
      await db.destroy();
    },
  };
  if (options.worker ?? true) await bench.startWorker();
  return bench;
}
