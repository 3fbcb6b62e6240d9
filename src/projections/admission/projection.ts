import { switchEventSchemas, type SwitchEvent } from '../../domain/admission/events.js';
import { mutationEventSchemas, type MutationEvent } from '../../domain/mutation/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import type { Projection } from '../projection.js';
import { createTables, type TableSpec } from '../tables.js';

// What admission looks up besides the observed entities: the operator's switch (one row), and
// the entity each confirmed creation made, so it can be the next request's target at once.
// (The listing behind a local listing id is the listings projection's `listing_targets`, kept
// in the transaction that makes the listing visible to list_listings.)

export const ADMISSION_SWITCH_TABLE = 'admission_switch';
/** entities our creations made, by local id: the receipt that made them */
export const CREATED_TARGETS_TABLE = 'created_targets';

const CREATION_EVENTS = ['MutationSubmitted', 'MutationCreationConfirmed'] as const;
const SWITCH_EVENTS = Object.keys(switchEventSchemas);

const ADMISSION_TABLES: Record<string, TableSpec> = {
  [ADMISSION_SWITCH_TABLE]: { columns: { disabled: 'boolean', reason: 'text null', by: 'text', at: 'timestamptz' } },
  [CREATED_TARGETS_TABLE]: { columns: { id: 'uuid', type: 'text', receipt_id: 'uuid' }, primary: ['id', 'type'] },
};

export const admissionProjection: Projection = {
  name: 'admission',
  // 2: listing_targets moved to the listings projection
  version: 2,
  handles: [...SWITCH_EVENTS, ...CREATION_EVENTS],
  tables: Object.keys(ADMISSION_TABLES),
  createTables: (db, schema) => createTables(db, schema, ADMISSION_TABLES),
  async apply(trx, recorded, schema) {
    if ((CREATION_EVENTS as readonly string[]).includes(recorded.type)) {
      const event = parseEvent<MutationEvent>(mutationEventSchemas, recorded);
      if (event.type !== 'MutationSubmitted' && event.type !== 'MutationCreationConfirmed') return;
      const { receipt_id, created } = event.data;
      if (created)
        await trx
          .withSchema(schema)
          .table(CREATED_TARGETS_TABLE)
          .insert({ id: created.id, type: created.type, receipt_id })
          .onConflict(['id', 'type'])
          .ignore();
      return;
    }
    const event = parseEvent<SwitchEvent>(switchEventSchemas, recorded);
    const row = {
      disabled: event.type === 'AdmissionsDisabled',
      reason: event.type === 'AdmissionsDisabled' ? event.data.reason : null,
      by: event.data.by,
      at: event.data.at,
    };
    await trx.withSchema(schema).table(ADMISSION_SWITCH_TABLE).delete();
    await trx.withSchema(schema).table(ADMISSION_SWITCH_TABLE).insert(row);
  },
};
