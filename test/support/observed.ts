import type { Knex } from 'knex';
import { pino } from 'pino';
import { createDb } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { createEventStore, type EventStore, type RecordedEvent } from '../../src/eventstore/index.js';
import { createLwaClient } from '../../src/marketplace/clients/index.js';
import {
  createSimulator,
  DEFAULT_LWA_CLIENT,
  type Simulator,
  type SimulatorOptions,
} from '../../src/marketplace/simulator/index.js';
import { Projector } from '../../src/projections/projector.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { observationsProjection } from '../../src/projections/observations/projection.js';
import { mutationsProjection } from '../../src/projections/mutations/projection.js';
import type { Projection } from '../../src/projections/projection.js';
import type { ViewDefinition } from '../../src/projections/views/definition.js';
import { migrateViews } from '../../src/projections/views/migrate.js';
import { viewDefinitions } from '../../src/projections/views/registry.js';
import { withQueryRole } from '../../src/projections/views/run.js';
import { newId } from '../../src/domain/shared/ids.js';
import { syncConnections } from '../../src/workers/connections-sync.js';
import type { SyncDeps, SyncJobDefinition } from '../../src/workers/sync/job.js';

// The report-based observed data, end to end: the simulator over HTTP, the real clients, the
// real sync job, the event store, the projector and the views as query_data reads them.

export const DAY_MS = 86_400_000;

export interface Harness {
  db: Knex;
  store: EventStore;
  simulator: Simulator;
  projector: Projector;
  /** the simulator's and the sync's clock */
  clock: { ms: number };
  allEvents(): Promise<RecordedEvent[]>;
  /** Registers an account from the simulator's seller or vendor through the connection sync,
   * for a new user or the one given (several accounts of one user). */
  connect(kind: 'seller' | 'vendor', user_id?: string): Promise<string>;
  deps(refreshToken: string): SyncDeps;
  /** Runs one sync for the account and waits until the projections caught up. */
  run(job: SyncJobDefinition, account_id: string, refreshToken: string): Promise<number>;
  /** Reads a view the way query_data does, as the given accounts; values in PostgreSQL's text form. */
  query(accountIds: string[], sql: string): Promise<{ columns: string[]; rows: Record<string, string | null>[] }>;
  close(): Promise<void>;
}

export async function startHarness(
  projections: Projection[],
  views: ViewDefinition[],
  startMs: number,
  /** the simulator's seed, or its options (the clock is the harness's) */
  simulatorOptions: number | Omit<SimulatorOptions, 'now'> = 11,
  /** a database of the test's own (e.g. for a worker that reads every account); the run's by default */
  databaseUrl = process.env.DATABASE_URL!,
): Promise<Harness> {
  const db = createDb(databaseUrl);
  const store = createEventStore({ DATABASE_URL: databaseUrl });
  // receipts too: the read tools show each target's mutations
  const all = [accountsProjection, observationsProjection, mutationsProjection, ...projections];
  await migrate(db, migrationSteps(all, { eventStoreInPostgres: true }));
  await db.transaction((trx) =>
    migrateViews(trx, [...viewDefinitions, ...views.filter((v) => !viewDefinitions.some((d) => d.name === v.name))]),
  );
  const clock = { ms: startMs };
  const simulator = createSimulator({
    ...(typeof simulatorOptions === 'number' ? { seed: simulatorOptions } : simulatorOptions),
    now: () => clock.ms,
  });
  await simulator.listen();
  const projector = new Projector(db, store, all, { pollMs: 20 });
  projector.start();
  const logger = pino({ level: 'silent' });
  const ctx = { store, metadata: { actor: { kind: 'worker' as const, id: 'test' } } };
  const endpoints = simulator.endpoints();
  const lwa = createLwaClient({ tokenUrl: endpoints.lwaTokenUrl, ...DEFAULT_LWA_CLIENT });
  const deps = (refreshToken: string): SyncDeps => ({
    ctx,
    db,
    lwa,
    endpoints,
    // the test's token, whatever credential set the account names
    credentials: () => ({ selling_refresh_token: refreshToken }),
    logger,
    now: () => new Date(clock.ms),
  });
  return {
    db,
    store,
    simulator,
    projector,
    clock,
    allEvents: () => store.readAll({ after: null, limit: 1_000_000 }),
    async connect(kind, user_id = newId()) {
      const account_id = newId();
      await syncConnections(
        { ctx, lwa, endpoints, logger },
        kind === 'seller'
          ? {
              user_id,
              account_id,
              credentials: 'seller',
              selling_refresh_token: 'Atzr|demo-seller',
              ads_refresh_token: 'Atzr|demo-advertiser',
            }
          : { user_id, account_id, credentials: 'vendor', ads_refresh_token: 'Atzr|demo-vendor-advertiser' },
      );
      await projector.whenCaughtUp();
      return account_id;
    },
    deps,
    async run(job, account_id, refreshToken) {
      const { recorded } = await job.run(deps(refreshToken), account_id);
      await projector.whenCaughtUp();
      return recorded;
    },
    async query(accountIds, sql) {
      // the view's content is under test here, not query_data's 3-s bound, which a loaded machine can pass
      const result = await withQueryRole(db, accountIds, (run) => run(sql), { timeoutMs: 60_000 });
      const columns = result.columns.map((c) => c.name);
      return { columns, rows: result.rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] ?? null]))) };
    },
    async close() {
      await projector.stop();
      await simulator.close();
      await store.close();
      await db.destroy();
    },
  };
}
