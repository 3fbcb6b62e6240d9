import { automationRunDecider } from '../../domain/automation-run/decide.js';
import {
  automationActionId,
  automationRunEventSchemas,
  type AutomationRunEvent,
} from '../../domain/automation-run/events.js';
import type { Knex } from '../../infra/db.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import { bindableRuns, eventProjection, type Columns, type Parsed } from '../tables.js';

// Live runs and their automation actions (spec 2.10, 3.3), which list_automation_actions reads.
// One row per run (what retention prunes by), one per action. An action row remembers the last
// revision of its run's stream applied to it: a replay changes nothing.

export const RUNS_TABLE = 'automation_runs';
export const ACTIONS_TABLE = 'automation_actions';
const RUN_STREAM = `${automationRunDecider.aggregate}-`;

type Recorded = Extract<AutomationRunEvent, { type: 'AutomationRunRecorded' }>['data'];
type Settled = Extract<AutomationRunEvent, { type: 'AutomationActionSettled' }>['data'];

const runIdOf = (recorded: RecordedEvent) => recorded.streamId.slice(RUN_STREAM.length);

/** A recorded run's row. */
const runRow = (run_id: string, { run, ...d }: Recorded) => ({
  run_id,
  ...run,
  error_message: d.error_message,
  missing_fields: JSON.stringify(d.missing_fields),
  store_changes: d.store_changes,
  webhook_posts: d.webhook_posts,
  actions: d.actions.length,
  warned: d.actions.some((a) => a.kind === 'warning'),
  at: d.at,
});

/** A recorded run's action rows, at the revision of the run's stream that recorded them. */
const actionRows = (run_id: string, { run, at, actions }: Recorded, revision: number) =>
  actions.map((a) => ({
    id: automationActionId(run_id, a.index),
    run_id,
    ...run,
    ...a,
    missing_fields: a.missing_fields === null ? null : JSON.stringify(a.missing_fields),
    decided_at: at,
    updated_at: at,
    revision,
  }));

/** Rows new to the table (a run or action applied before is left as it is). */
async function insertNew(trx: Knex.Transaction, schema: string, table: string, key: string, rows: object[]) {
  for (const run of bindableRuns(rows)) await trx.withSchema(schema).table(table).insert(run).onConflict(key).ignore();
}

/**
 * Events in at most three statements: their runs, the runs' actions, then each settled action once,
 * with what its settlements in the batch leave one after another (the last status, error and
 * time; the last receipt named). A run's settlements follow its record in its stream, so every
 * action they settle is in the table by then.
 */
async function applyRuns(trx: Knex.Transaction, batch: ReadonlyArray<Parsed<AutomationRunEvent>>, schema: string) {
  const runs: object[] = [];
  const actions: object[] = [];
  const settled = new Map<
    string,
    Omit<Settled, 'index' | 'at'> & { id: string; updated_at: string; revision: number }
  >();
  for (const { event, recorded } of batch) {
    const run_id = runIdOf(recorded);
    const revision = Number(recorded.revision);
    if (event.type === 'AutomationRunRecorded') {
      runs.push(runRow(run_id, event.data));
      actions.push(...actionRows(run_id, event.data, revision));
      continue;
    }
    const { index, status, receipt_id, error_message, at } = event.data;
    const id = automationActionId(run_id, index);
    const before = settled.get(id);
    settled.set(id, {
      id,
      status,
      receipt_id: receipt_id ?? before?.receipt_id ?? null,
      error_message,
      updated_at: at,
      revision,
    });
  }
  await insertNew(trx, schema, RUNS_TABLE, 'run_id', runs);
  await insertNew(trx, schema, ACTIONS_TABLE, 'id', actions);
  if (settled.size === 0) return;
  await trx.raw(
    `update ??.${ACTIONS_TABLE} a set status = v.status, receipt_id = coalesce(v.receipt_id, a.receipt_id),
       error_message = v.error_message, updated_at = v.updated_at, revision = v.revision
     from jsonb_to_recordset(?::jsonb) as v(id uuid, status text, receipt_id uuid, error_message text, updated_at timestamptz, revision integer)
     where a.id = v.id and a.revision < v.revision`,
    [schema, JSON.stringify([...settled.values()])],
  );
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
  version: 3,
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
      // alerts: an automation's latest runs
      indexes: [['automation_id', 'at']],
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
        // the console's event page: what the runs on an event decided
        ['event_id'],
      ],
    },
  },
  apply: (trx, event, recorded, schema) => applyRuns(trx, [{ event, recorded }], schema),
  applyMany: applyRuns,
});
