import { storeEventSchemas, type StoreEvent } from '../../domain/automation-store/events.js';
import { entryBytes } from '../../domain/automation-store/limits.js';
import { eventProjection } from '../tables.js';

// Each automation's store (spec 2.14): its keys' latest values, with the time they expire, and
// the run write-sets they came from (which the retention prune deletes from the log once they
// expired). The projector applies the write-sets in log order, so the last one wins; a delete
// removes the row. Reads skip expired rows until the prune removes them.

/** The store's tables: the keys' values, and the write-sets they came from. */
export const STORE_TABLES = { values: 'automation_store_values', writes: 'automation_store_writes' } as const;

export const automationStoreProjection = eventProjection<StoreEvent>({
  name: 'automation_store',
  version: 1,
  events: storeEventSchemas,
  tables: {
    [STORE_TABLES.values]: {
      columns: {
        automation_id: 'uuid',
        key: 'text',
        /** the value's JSON text exactly as the run set it (jsonb would reorder keys and drop \u0000) */
        value_json: 'text',
        /** what the entry counts against the automation's total: key and JSON text, UTF-8 */
        bytes: 'integer',
        run_id: 'uuid',
        written_at: 'timestamptz',
        expires_at: 'timestamptz index',
      },
      primary: ['automation_id', 'key'],
    },
    [STORE_TABLES.writes]: {
      columns: { run_id: 'uuid primary', automation_id: 'uuid', expires_at: 'timestamptz index' },
    },
  },
  async apply(trx, { data }, _recorded, schema) {
    const { automation_id, run_id, at, expires_at } = data;
    await trx
      .withSchema(schema)
      .table(STORE_TABLES.writes)
      .insert({ run_id, automation_id, expires_at })
      .onConflict('run_id')
      .ignore();
    const deleted = data.changes.filter((c) => c.value_json === null).map((c) => c.key);
    if (deleted.length > 0)
      await trx.withSchema(schema).table(STORE_TABLES.values).where({ automation_id }).whereIn('key', deleted).delete();
    const set = data.changes.filter((c) => c.value_json !== null);
    if (set.length > 0)
      await trx
        .withSchema(schema)
        .table(STORE_TABLES.values)
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
});
