import type { CommandContext } from '../../src/commands/shared/handler.js';
import { createEventStore, type EventStore } from '../../src/eventstore/index.js';
import { createDb, type Knex } from '../../src/infra/db.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { automationRunsProjection } from '../../src/projections/automation-runs/projection.js';
import { automationStoreProjection } from '../../src/projections/automation-store/projection.js';
import type { Projection } from '../../src/projections/projection.js';
import { Projector } from '../../src/projections/projector.js';

// What the tests of the live-run records share: the run's database with the automation runs and
// store read models, its event store, a projector following both, and a command context acting as
// the runner would.

export interface AutomationRecords {
  db: Knex;
  store: EventStore;
  projector: Projector;
  ctx: CommandContext;
  /** waits until both read models show everything appended so far */
  caughtUp(): Promise<void>;
}

export const recordProjections = [automationRunsProjection, automationStoreProjection];

/**
 * Registers before/after hooks; the fields are filled before the suite's tests run. `also`: other
 * read models the suite needs, migrated and followed by the same projector.
 */
export function useAutomationRecords(also: readonly Projection[] = []): AutomationRecords {
  const r = {} as AutomationRecords;
  before(async () => {
    const projections = [...also, ...recordProjections];
    r.db = createDb(process.env.DATABASE_URL!);
    r.store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
    await migrate(r.db, migrationSteps(projections, { eventStoreInPostgres: true }));
    r.projector = new Projector(r.db, r.store, projections, { pollMs: 20 });
    r.projector.start();
    r.ctx = { store: r.store, metadata: { actor: { kind: 'automation', id: 'runner-test' } } };
    r.caughtUp = () => r.projector.whenCaughtUp();
  });
  after(async () => {
    await r.projector?.stop();
    await r.store?.close();
    await r.db?.destroy();
  });
  return r;
}
