import { switchEventSchemas, type SwitchEvent } from '../../domain/admission/events.js';
import { mutationEventSchemas, type MutationEvent } from '../../domain/mutation/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import { pageOf } from '../observed/economics-support.js';
import { str, obj } from '../../domain/shared/json.js';
import type { Projection } from '../projection.js';
import { createTables, type TableSpec } from '../tables.js';
import { LISTINGS_DATASET } from '../../domain/observation/datasets.js';
import { listingId } from '../../domain/observation/ids.js';

// What admission looks up besides the observed entities: the operator's switch (one row), and
// the listing behind each local listing id (the id is a hash of account, marketplace and SKU, so
// it can't be read back). A listing id stays once seen; admission checks the listing is current.
// And the entity each confirmed creation made, so it can be the next request's target at once.

export const ADMISSION_SWITCH_TABLE = 'admission_switch';
export const LISTING_TARGETS_TABLE = 'listing_targets';
/** entities our creations made, by local id: the receipt that made them */
export const CREATED_TARGETS_TABLE = 'created_targets';

const CREATION_EVENTS = ['MutationSubmitted', 'MutationCreationConfirmed'] as const;
const SWITCH_EVENTS = Object.keys(switchEventSchemas);

const ADMISSION_TABLES: Record<string, TableSpec> = {
  [ADMISSION_SWITCH_TABLE]: { columns: { disabled: 'boolean', reason: 'text null', by: 'text', at: 'timestamptz' } },
  [LISTING_TARGETS_TABLE]: {
    columns: { listing_id: 'uuid primary', account_id: 'uuid', marketplace_id: 'text', sku: 'text' },
    // patch_listing: the marketplaces an account's SKU was seen in
    indexes: [['account_id', 'sku']],
  },
  [CREATED_TARGETS_TABLE]: { columns: { id: 'uuid', type: 'text', receipt_id: 'uuid' }, primary: ['id', 'type'] },
};

export const admissionProjection: Projection = {
  name: 'admission',
  version: 1,
  handles: [...SWITCH_EVENTS, 'PageObserved', ...CREATION_EVENTS],
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
    if (recorded.type === 'PageObserved') {
      const page = pageOf(recorded, [LISTINGS_DATASET]);
      if (!page) return;
      const skus = [...new Set(page.rows.map((raw) => str(obj(raw)?.sku)).filter((s): s is string => s !== null))];
      if (skus.length === 0) return;
      const rows = skus.map((sku) => ({
        listing_id: listingId(page.account_id, page.scope, sku),
        account_id: page.account_id,
        marketplace_id: page.scope,
        sku,
      }));
      await trx.withSchema(schema).table(LISTING_TARGETS_TABLE).insert(rows).onConflict('listing_id').ignore();
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
