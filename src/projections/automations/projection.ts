import {
  automationEventSchemas,
  withLiveSlot,
  type AutomationEvent,
  type LiveSlotEvent,
} from '../../domain/automation/events.js';
import type { Knex } from '../../infra/db.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import { eventProjection } from '../tables.js';

type AutomationEventOf<T extends AutomationEvent['type']> = Extract<AutomationEvent, { type: T }>['data'];

// Automations (spec 2.2) and every code version (spec 8 keeps them a year). `live` follows the
// live slots (`automation_live-…`), the authority on which automation of an event type runs, so a
// half-finished activation reads as it will be once retried; `archived` follows the automation's
// own stream. A row remembers the last revision of its stream it applied: a replay changes nothing.

export const AUTOMATIONS_TABLE = 'automations';
export const CODE_VERSIONS_TABLE = 'automation_code_versions';

const AUTOMATION_STREAM = 'automation-';

/** The columns an event of the automation's own stream sets (creation: their first values; its insert adds the rest). */
function changes(event: AutomationEvent): Record<string, unknown> {
  switch (event.type) {
    case 'AutomationCreated': {
      const { title, code } = event.data;
      const operation_dependencies = JSON.stringify(event.data.operation_dependencies);
      return { title, code, version: 1, operation_dependencies, archived: false };
    }
    case 'AutomationCodeSaved':
      return { code: event.data.code, version: event.data.version };
    case 'AutomationRetitled':
      return { title: event.data.title };
    case 'AutomationDependenciesSet':
      return { operation_dependencies: JSON.stringify(event.data.operation_dependencies) };
    case 'AutomationActivated':
    case 'AutomationDeactivated':
      return {}; // the slot's LiveAutomationChanged moves `live`
    case 'AutomationArchived':
      return { archived: true };
    case 'AutomationCompacted': {
      const d = event.data;
      const { title, code, version } = d;
      const operation_dependencies = JSON.stringify(d.operation_dependencies);
      return { title, code, version, operation_dependencies, archived: d.status === 'archived' };
    }
  }
}

async function applyAutomationEvent(
  trx: Knex.Transaction,
  event: AutomationEvent,
  recorded: RecordedEvent,
  schema: string,
) {
  const automation_id = recorded.streamId.slice(AUTOMATION_STREAM.length);
  const revision = Number(recorded.revision);
  const at = recorded.createdAt;
  if (event.type === 'AutomationCompacted') return applyCompaction(trx, schema, automation_id, event.data, recorded);
  const rows = () => trx.withSchema(schema).table(AUTOMATIONS_TABLE);
  if (event.type === 'AutomationCreated') {
    const d = event.data;
    await rows()
      .insert({
        ...changes(event),
        automation_id,
        account_id: d.account_id,
        stream_type: d.stream_type,
        source_automation_id: d.source_automation_id,
        live: false,
        created_at: d.at,
        created_by: d.by,
        updated_at: at,
        revision,
      })
      .onConflict('automation_id')
      .ignore();
  } else {
    await rows()
      .where({ automation_id })
      .where('revision', '<', revision)
      .update({ ...changes(event), updated_at: at, revision });
  }
  const saved =
    event.type === 'AutomationCreated'
      ? { ...event.data, version: 1 }
      : event.type === 'AutomationCodeSaved'
        ? event.data
        : null;
  if (saved)
    await trx
      .withSchema(schema)
      .table(CODE_VERSIONS_TABLE)
      .insert({ automation_id, version: saved.version, code: saved.code, at: saved.at, by: saved.by })
      .onConflict(['automation_id', 'version'])
      .ignore();
}

/**
 * A compaction stands for the events before it: on a rebuild (where those may be gone) it makes the
 * row as they did, with `live` as the slot had it then; live, it leaves `live` to the slot's own
 * events. Either way the versions before the first one kept go.
 */
async function applyCompaction(
  trx: Knex.Transaction,
  schema: string,
  automation_id: string,
  d: AutomationEventOf<'AutomationCompacted'>,
  recorded: RecordedEvent,
) {
  const revision = Number(recorded.revision);
  const rows = () => trx.withSchema(schema).table(AUTOMATIONS_TABLE);
  const row = { ...changes({ type: 'AutomationCompacted', data: d }), updated_at: recorded.createdAt, revision };
  if (await rows().where({ automation_id }).first('automation_id'))
    await rows().where({ automation_id }).where('revision', '<', revision).update(row);
  else
    await rows().insert({
      ...row,
      automation_id,
      account_id: d.account_id,
      stream_type: d.stream_type,
      source_automation_id: d.source_automation_id,
      live: d.live,
      created_at: d.created_at,
      created_by: d.created_by,
    });
  const versions = () => trx.withSchema(schema).table(CODE_VERSIONS_TABLE);
  await versions().where({ automation_id }).where('version', '<', d.versions[0]!.version).delete();
  await versions()
    .insert(d.versions.map((v) => ({ automation_id, ...v })))
    .onConflict(['automation_id', 'version'])
    .ignore();
}

async function applySlotEvent(trx: Knex.Transaction, { data }: LiveSlotEvent, recorded: RecordedEvent, schema: string) {
  const rows = () => trx.withSchema(schema).table(AUTOMATIONS_TABLE);
  const at = recorded.createdAt;
  if (data.previous) await rows().where({ automation_id: data.previous }).update({ live: false, updated_at: at });
  if (data.automation_id)
    await rows().where({ automation_id: data.automation_id }).update({ live: true, updated_at: at });
}

export const automationsProjection = eventProjection<AutomationEvent | LiveSlotEvent>({
  name: 'automations',
  version: 1,
  events: withLiveSlot(automationEventSchemas),
  tables: {
    [AUTOMATIONS_TABLE]: {
      columns: {
        automation_id: 'uuid primary',
        account_id: 'uuid',
        stream_type: 'text',
        title: 'text',
        code: 'text',
        version: 'integer',
        operation_dependencies: 'jsonb',
        source_automation_id: 'uuid null',
        live: 'boolean',
        archived: 'boolean',
        created_at: 'timestamptz',
        created_by: 'text',
        updated_at: 'timestamptz',
        /** the last revision of the automation's stream applied */
        revision: 'integer',
      },
      indexes: [['account_id', 'stream_type']],
    },
    [CODE_VERSIONS_TABLE]: {
      columns: { automation_id: 'uuid', version: 'integer', code: 'text', at: 'timestamptz', by: 'text' },
      primary: ['automation_id', 'version'],
    },
  },
  async apply(trx, event, recorded, schema) {
    if (event.type === 'LiveAutomationChanged') return applySlotEvent(trx, event, recorded, schema);
    return applyAutomationEvent(trx, event, recorded, schema);
  },
});
