import { automationRunDecider } from '../../domain/automation-run/decide.js';
import {
  automationActionId,
  automationRunEventSchemas,
  type AutomationRunEvent,
} from '../../domain/automation-run/events.js';
import { parseEvent } from '../../domain/shared/decider.js';
import type { Knex } from '../../infra/db.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import type { Projection } from '../projection.js';

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

export const automationRunsProjection: Projection = {
  name: 'automation_runs',
  version: 1,
  handles: Object.keys(automationRunEventSchemas),
  tables: [RUNS_TABLE, ACTIONS_TABLE],
  async createTables(db, schema) {
    const runKey = (t: Knex.CreateTableBuilder) => {
      t.uuid('automation_id').notNullable();
      t.integer('automation_version').notNullable();
      t.uuid('account_id').notNullable();
      t.text('stream_type').notNullable();
      t.text('event_id').notNullable();
      t.text('listing_id');
    };
    await db.schema.withSchema(schema).createTable(RUNS_TABLE, (t) => {
      t.uuid('run_id').primary();
      runKey(t);
      t.text('error_message');
      t.jsonb('missing_fields').notNullable();
      t.integer('store_changes').notNullable();
      t.integer('webhook_posts').notNullable();
      /** how many actions it recorded: a run without any is kept as long as its event */
      t.integer('actions').notNullable();
      t.boolean('warned').notNullable();
      t.timestamp('at', { useTz: true }).notNullable().index();
    });
    await db.schema.withSchema(schema).createTable(ACTIONS_TABLE, (t) => {
      t.uuid('id').primary();
      t.uuid('run_id').notNullable().index();
      t.integer('index').notNullable();
      runKey(t);
      t.text('kind').notNullable();
      t.text('status');
      t.text('error_message');
      t.double('value');
      t.text('action');
      t.text('target_type');
      t.text('target_id');
      t.uuid('receipt_id');
      t.text('asin');
      t.text('sku');
      t.text('marketplace_id');
      t.text('title');
      t.jsonb('missing_fields');
      t.timestamp('decided_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      /** the last revision of the run's stream applied */
      t.integer('revision').notNullable();
      t.index(['account_id', 'decided_at']);
      t.index(['automation_id', 'decided_at']);
    });
  },
  async apply(trx, recorded, schema) {
    return applyRun(trx, recorded, parseEvent<AutomationRunEvent>(automationRunEventSchemas, recorded), schema);
  },
};
