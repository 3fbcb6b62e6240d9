import { storeEventSchemas, type StoreEvent } from '../../domain/automation-store/events.js';
import { entryBytes } from '../../domain/automation-store/limits.js';
import { parseEvent } from '../../domain/shared/decider.js';
import type { Projection } from '../projection.js';

// Each automation's store (spec 2.14): its keys' latest values, with the time they expire, and
// the run write-sets they came from (which the retention prune deletes from the log once they
// expired). The projector applies the write-sets in log order, so the last one wins; a delete
// removes the row. Reads skip expired rows until the prune removes them.

export const STORE_VALUES_TABLE = 'automation_store_values';
export const STORE_WRITES_TABLE = 'automation_store_writes';

export const automationStoreProjection: Projection = {
  name: 'automation_store',
  version: 1,
  handles: Object.keys(storeEventSchemas),
  tables: [STORE_VALUES_TABLE, STORE_WRITES_TABLE],
  async createTables(db, schema) {
    await db.schema.withSchema(schema).createTable(STORE_VALUES_TABLE, (t) => {
      t.uuid('automation_id').notNullable();
      t.text('key').notNullable();
      /** the value's JSON text exactly as the run set it (jsonb would reorder keys and drop \u0000) */
      t.text('value_json').notNullable();
      /** what the entry counts against the automation's total: key and JSON text, UTF-8 */
      t.integer('bytes').notNullable();
      t.uuid('run_id').notNullable();
      t.timestamp('written_at', { useTz: true }).notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable().index();
      t.primary(['automation_id', 'key']);
    });
    await db.schema.withSchema(schema).createTable(STORE_WRITES_TABLE, (t) => {
      t.uuid('run_id').primary();
      t.uuid('automation_id').notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable().index();
    });
  },
  async apply(trx, recorded, schema) {
    const { data } = parseEvent<StoreEvent>(storeEventSchemas, recorded);
    const { automation_id, run_id, at, expires_at } = data;
    await trx
      .withSchema(schema)
      .table(STORE_WRITES_TABLE)
      .insert({ run_id, automation_id, expires_at })
      .onConflict('run_id')
      .ignore();
    const deleted = data.changes.filter((c) => c.value_json === null).map((c) => c.key);
    if (deleted.length > 0)
      await trx.withSchema(schema).table(STORE_VALUES_TABLE).where({ automation_id }).whereIn('key', deleted).delete();
    const set = data.changes.filter((c) => c.value_json !== null);
    if (set.length > 0)
      await trx
        .withSchema(schema)
        .table(STORE_VALUES_TABLE)
        .insert(
          set.map(({ key, value_json }) => ({
            automation_id,
            key,
            value_json,
            bytes: entryBytes(key, value_json!),
            run_id,
            written_at: at,
            expires_at,
          })),
        )
        .onConflict(['automation_id', 'key'])
        .merge();
  },
};
