import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { AccountEvent } from '../../src/domain/account/events.js';
import type { UserEvent } from '../../src/domain/user/events.js';
import type { RecordedEvent } from '../../src/eventstore/port.js';
import { migrate } from '../../src/infra/migrate.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { applyEvents } from '../../src/projections/apply.js';
import { authProjection } from '../../src/projections/auth/projection.js';
import { READ_MODEL_SCHEMA } from '../../src/projections/projection.js';

// Fills the accounts and auth read models by applying events through the projections'
// own code, as the projector would.
const projections = [accountsProjection, authProjection];
let position = 0n;

export async function prepareReadModels(db: Knex): Promise<void> {
  await migrate(db, projections, { eventStoreInPostgres: true });
}

export async function project(db: Knex, events: ReadonlyArray<AccountEvent | UserEvent>): Promise<void> {
  const recorded: RecordedEvent[] = events.map((e) => {
    position += 1n;
    return { id: randomUUID(), streamId: `seed-${randomUUID()}`, revision: 0n, type: e.type, data: e.data, metadata: {}, position: { commit: position, prepare: position }, createdAt: new Date() };
  });
  await db.transaction(async (trx) => {
    for (const p of projections) await applyEvents(trx, p, recorded, READ_MODEL_SCHEMA);
  });
}
