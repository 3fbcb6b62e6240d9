import { automationRunDecider } from '../../domain/automation-run/decide.js';
import {
  automationActionId,
  automationRunEventSchemas,
  type AutomationRunEvent,
} from '../../domain/automation-run/events.js';
import type { Knex } from '../../infra/db.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import { eventProjection, type Columns } from '../tables.js';

// Live runs and their automation actions (spec 2.10, 3.3), which list_automation_actions reads.
// One row per run (what retention prunes by), one per action. An action row remembers the last
// revision of its run's stream applied to it: a replay changes nothing.

export const RUNS_TABLE = 'automation_runs';
export const ACTIONS_TABLE = 'automation_actions';
const RUN_STREAM = `${automationRunDecider.aggregate}-`;

async function applyRun(trx: Knex.Transaction, recorded: RecordedEvent, event: AutomationRunEvent, schema: string) {
  const revision = Number(recorded.revision);
  const run_id = recorded.streamId.slice(RUN_STREAM.length);
  if (event.type === 'AutomationRunRecorded') {
    const { run, ...d } = event.data;
    await trx
      .withSchema(schema)
      .table(RUNS_TABLE)
      .insert({
        run_id,
        ...run,
        error_message: d.error_message,
        missing_fields: JSON.stringify(d.missing_fields),
        store_changes: d.store_changes,
        webhook_posts: d.webhook_posts,
        actions: d.actions.length,
        warned: d.actions.some((a) => a.kind === 'warning'),
        at: d.at,
      })
      .onConflict('run_id')
      .ignore();
    if (d.actions.length > 0)
      await trx
        .withSchema(schema)
        .table(ACTIONS_TABLE)
        .insert(
          d.actions.map((a) => ({
            id: automationActionId(run_id, a.index),
            run_id,
            ...run,
            ...a,
            missing_fields: a.missing_fields === null ? null : JSON.stringify(a.missing_fields),
            decided_at: d.at,
            updated_at: d.at,
            revision,
          })),
        )
        .onConflict('id')
        .ignore();
    return;
  }
  const d = event.data;
  await trx
    .withSchema(schema)
    .table(ACTIONS_TABLE)
    .where({ id: automationActionId(run_id, d.index) })
    .where('revision', '<', revision)
    .update({
      status: d.status,
      receipt_id: trx.raw('coalesce(?::uuid, receipt_id)', [d.receipt_id]),
      error_message: d.error_message,
      updated_at: d.at,
      revision,
    });
}

/** What a run and each of its actions carry of the run's automation and event. */
const RUN_KEY: Columns = {
  automation_id: 'uuid',
  automation_version: 'integer',
  account_id: 'uuid',
  stream_type: 'text',
  event_id: 'text',
  listing_id: 'text null',
};

export const automationRunsProjection = eventProjection<AutomationRunEvent>({
  name: 'automation_runs',
  version: 1,
  events: automationRunEventSchemas,
  tables: {
    [RUNS_TABLE]: {
      columns: {
        run_id: 'uuid primary',
        ...RUN_KEY,
        error_message: 'text null',
        missing_fields: 'jsonb',
        store_changes: 'integer',
        webhook_posts: 'integer',
        /** how many actions it recorded: a run without any is kept as long as its event */
        actions: 'integer',
        warned: 'boolean',
        at: 'timestamptz index',
      },
    },
    [ACTIONS_TABLE]: {
      columns: {
        id: 'uuid primary',
        run_id: 'uuid index',
        index: 'integer',
        ...RUN_KEY,
        kind: 'text',
        status: 'text null',
        error_message: 'text null',
        value: 'double null',
        action: 'text null',
        target_type: 'text null',
        target_id: 'text null',
        receipt_id: 'uuid null',
        asin: 'text null',
        sku: 'text null',
        marketplace_id: 'text null',
        title: 'text null',
        missing_fields: 'jsonb null',
        decided_at: 'timestamptz',
        updated_at: 'timestamptz',
        /** the last revision of the run's stream applied */
        revision: 'integer',
      },
      indexes: [
        ['account_id', 'decided_at'],
        ['automation_id', 'decided_at'],
      ],
    },
  },
  apply: (trx, event, recorded, schema) => applyRun(trx, recorded, event, schema),
});
