import { observationEventSchemas, type ObservationEvent } from '../../domain/observation/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import type { Projection } from '../projection.js';

/**
 * The page count of each scope's last complete read. Dataset projections keep the rows of
 * every page they were given; readers take only pages below this count, so a page that
 * disappears and later comes back unchanged (and so is not recorded again) reappears.
 */
export const observationsProjection: Projection = {
  name: 'observations',
  version: 1,
  handles: ['SyncCompleted'],
  tables: ['observed_scopes'],
  async createTables(db, schema) {
    await db.schema.withSchema(schema).createTable('observed_scopes', (t) => {
      t.uuid('account_id').notNullable();
      t.text('dataset').notNullable();
      t.text('scope').notNullable();
      t.integer('pages').notNullable();
      t.timestamp('observed_at', { useTz: true }).notNullable();
      t.primary(['account_id', 'dataset', 'scope']);
    });
  },
  async apply(trx, recorded, schema) {
    const event = parseEvent<ObservationEvent>(observationEventSchemas, recorded);
    if (event.type !== 'SyncCompleted') return;
    const { account_id, dataset, scope, pages, observed_at } = event.data;
    await trx
      .withSchema(schema)
      .table('observed_scopes')
      .insert({ account_id, dataset, scope, pages, observed_at })
      .onConflict(['account_id', 'dataset', 'scope'])
      .merge(['pages', 'observed_at']);
  },
};
