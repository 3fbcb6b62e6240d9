import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { AccountEvent } from '../../src/domain/account/events.js';
import type { UserEvent } from '../../src/domain/user/events.js';
import { ANY, createEventStore, type Position } from '../../src/eventstore/index.js';
import { migrate } from '../../src/infra/migrate.js';
import { migrationSteps } from '../../src/migrations.js';
import { accountsProjection } from '../../src/projections/accounts/projection.js';
import { authProjection } from '../../src/projections/auth/projection.js';
import { Projector } from '../../src/projections/projector.js';

// Fills the accounts and auth read models the real way: events appended to their streams
// in the run's event log, then projected, so every read model stays rebuildable from the log.
const projections = [accountsProjection, authProjection];

export async function prepareReadModels(db: Knex): Promise<void> {
  await migrate(db, migrationSteps(projections, { eventStoreInPostgres: true }));
}

const streamOf = (e: AccountEvent | UserEvent) =>
  'account_id' in e.data ? `account-${e.data.account_id}` : `user-${e.data.user_id}`;

export async function project(db: Knex, events: ReadonlyArray<AccountEvent | UserEvent>): Promise<void> {
  const store = createEventStore({ DATABASE_URL: process.env.DATABASE_URL! });
  const projector = new Projector(db, store, projections, { pollMs: 20 });
  try {
    let last: Position | null = null;
    for (const e of events)
      last = (await store.appendToStream(streamOf(e), [{ type: e.type, data: e.data }], { expectedRevision: ANY }))
        .position;
    projector.start();
    await projector.whenCaughtUp(last);
  } finally {
    await projector.stop();
    await store.close();
  }
}

/** An account of `user_id` registered with these connections (random connection ids). */
export const accountWith = (
  account_id: string,
  user_id: string,
  name: string,
  entity_type: 'seller' | 'vendor',
  connections: ('selling' | 'ads')[],
): AccountEvent[] => [
  { type: 'AccountRegistered', data: { account_id, user_id, name, entity_type } },
  ...connections.map((c): AccountEvent => ({
    type: c === 'selling' ? 'SellingConnected' : 'AdvertisingConnected',
    data: { account_id, connection_id: randomUUID(), provider_id: `${c}-${name}` },
  })),
];
