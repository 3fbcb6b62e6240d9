import type { Knex } from 'knex';
import type { ActionStatus } from '../../domain/automation-run/events.js';
import { afterKeyset, type Keyset } from '../keyset.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { AUTOMATIONS_TABLE } from '../automations/projection.js';
import { ACTIONS_TABLE, RUNS_TABLE } from './projection.js';

// Reads of the automation runs read model, always within the caller's accounts.

export interface ActionFilter {
  accountIds: readonly string[];
  automation_id?: string;
  /** only the actions of runs on this event */
  event_id?: string;
  status?: ActionStatus;
  /** decided at or after */
  since?: Date | null;
  limit: number;
  /** the console's timeline: newest first by (decided_at, id), after `before` when given */
  timeline?: { before: Keyset | null };
}

/** An action as list_automation_actions shows it (spec 2.10), without its account's name. */
export interface ActionRow {
  id: string;
  kind: 'mutation' | 'warning';
  status: ActionStatus | null;
  error_message: string | null;
  value: number | null;
  asin: string | null;
  sku: string | null;
  marketplace_id: string | null;
  title: string | null;
  account_id: string;
  missing_fields: string[] | null;
  automation_id: string;
  automation_version: number;
  run_id: string;
  event_id: string;
  listing_id: string | null;
  stream_type: string;
  target_type: string | null;
  target_id: string | null;
  action: string | null;
  receipt_id: string | null;
  decided_at: string;
  updated_at: string;
}

/** The accounts' actions, newest decision first (a run's in push order), and how many match before `limit`. */
export async function listAutomationActions(db: Knex, f: ActionFilter): Promise<{ rows: ActionRow[]; total: number }> {
  if (f.accountIds.length === 0) return { rows: [], total: 0 };
  const matching = () => afterKeyset(matchingActions(db, f), 'decided_at', 'id', f.timeline?.before);
  const order = f.timeline
    ? [
        { column: 'decided_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ]
    : [{ column: 'decided_at', order: 'desc' }, 'run_id', 'index'];
  const [rows, [count]] = await Promise.all([
    matching()
      .orderBy(order)
      .limit(f.limit)
      .select(
        'id',
        'kind',
        'status',
        'error_message',
        'value',
        'asin',
        'sku',
        'marketplace_id',
        'title',
        'account_id',
        'missing_fields',
        'automation_id',
        'automation_version',
        'run_id',
        'event_id',
        'listing_id',
        'stream_type',
        'target_type',
        'target_id',
        'action',
        'receipt_id',
        'decided_at',
        'updated_at',
      ) as Promise<(Omit<ActionRow, 'decided_at' | 'updated_at'> & { decided_at: Date; updated_at: Date })[]>,
    matching().count<{ total: string }[]>({ total: '*' }),
  ]);
  return {
    rows: rows.map((a) => ({ ...a, decided_at: a.decided_at.toISOString(), updated_at: a.updated_at.toISOString() })),
    total: Number(count!.total),
  };
}

function matchingActions(db: Knex, f: Omit<ActionFilter, 'limit'>) {
  const q = db.withSchema(READ_MODEL_SCHEMA).table(ACTIONS_TABLE).whereIn('account_id', f.accountIds);
  if (f.automation_id) q.where({ automation_id: f.automation_id });
  if (f.event_id) q.where({ event_id: f.event_id });
  if (f.status) q.where({ status: f.status });
  if (f.since) q.where('decided_at', '>=', f.since);
  return q;
}

/** The matching actions per UTC day of their decision, oldest first: how many, and how many failed. */
export async function actionsPerDay(
  db: Knex,
  f: Omit<ActionFilter, 'limit' | 'timeline'>,
): Promise<Array<{ day: string; actions: number; failed: number }>> {
  if (f.accountIds.length === 0) return [];
  const day = `to_char(decided_at at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows: Array<{ day: string; actions: string; failed: string }> = await matchingActions(db, f)
    .select(
      db.raw(`${day} as day`),
      db.raw('count(*) as actions'),
      db.raw(`count(*) filter (where status = 'failed') as failed`),
    )
    .groupByRaw(day)
    .orderBy('day');
  return rows.map((r) => ({ day: r.day, actions: Number(r.actions), failed: Number(r.failed) }));
}

/** A run retention removes: its stream, and the warning slot it held. */
export interface ExpiredRun {
  run_id: string;
  automation_id: string;
  /** the UTC day of its warning, when it warned */
  warned_on: string | null;
}

/**
 * Runs decided before their cutoff, oldest first: runs with actions before `withActions` (spec 8
 * keeps actions a year), runs without before `withoutActions`.
 */
export async function expiredRuns(
  db: Knex,
  cutoffs: { withActions: Date; withoutActions: Date },
  limit: number,
): Promise<ExpiredRun[]> {
  const rows: { run_id: string; automation_id: string; warned: boolean; at: Date }[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table(RUNS_TABLE)
    .where((q) =>
      q
        .where((a) => a.where('actions', '>', 0).where('at', '<', cutoffs.withActions))
        .orWhere((a) => a.where('actions', 0).where('at', '<', cutoffs.withoutActions)),
    )
    .orderBy('at')
    .limit(limit)
    .select('run_id', 'automation_id', 'warned', 'at');
  return rows.map((r) => ({
    run_id: r.run_id,
    automation_id: r.automation_id,
    warned_on: r.warned ? r.at.toISOString().slice(0, 10) : null,
  }));
}

export async function deleteRunRows(db: Knex, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await db.transaction(async (trx) => {
    await trx.withSchema(READ_MODEL_SCHEMA).table(ACTIONS_TABLE).whereIn('run_id', runIds).delete();
    await trx.withSchema(READ_MODEL_SCHEMA).table(RUNS_TABLE).whereIn('run_id', runIds).delete();
  });
}

/** A live run on one of a backtest's events, with what its actions were (spec 2.10). */
export interface LiveRunOfEvent {
  event_id: string;
  listing_id: string | null;
  automation_id: string;
  automation_version: number;
  error_message: string | null;
  actions: Array<{
    status: ActionStatus | null;
    action: string | null;
    target_type: string | null;
    target_id: string | null;
    value: number | null;
    error_message: string | null;
  }>;
}

/** The account's live runs of a type on these events (decided at or after `since`), with their mutation actions. */
export async function liveRunsOfEvents(
  db: Knex,
  account_id: string,
  stream_type: string,
  eventIds: readonly string[],
  since: Date,
): Promise<LiveRunOfEvent[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await db.raw(
    `select r.event_id, r.listing_id, r.automation_id, r.automation_version, r.error_message,
            coalesce((select jsonb_agg(jsonb_build_object('status', a.status, 'action', a.action,
                        'target_type', a.target_type, 'target_id', a.target_id, 'value', a.value,
                        'error_message', a.error_message) order by a.index)
                        from ??.?? a where a.run_id = r.run_id and a.kind = 'mutation'), '[]'::jsonb) as actions
       from ??.?? r
      where r.account_id = ? and r.stream_type = ? and r.at >= ? and r.event_id = any(?::text[])
      order by r.at, r.run_id`,
    [READ_MODEL_SCHEMA, ACTIONS_TABLE, READ_MODEL_SCHEMA, RUNS_TABLE, account_id, stream_type, since, [...eventIds]],
  );
  return rows as LiveRunOfEvent[];
}

/**
 * The account's automations whose latest `runs` runs all failed (the run threw, or an action it
 * decided was refused as invalid), with the latest error: alerts' "failing run after run".
 */
export async function failingAutomations(
  db: Knex,
  account_id: string,
  runs: number,
): Promise<Array<{ automation_id: string; last_error: string | null }>> {
  const { rows } = await db.raw(
    `select au.automation_id, (array_agg(r.error order by r.at desc))[1] as last_error
       from ?? au
       cross join lateral (
         select x.at, coalesce(x.error_message, (
                  select a.error_message from ?? a where a.run_id = x.run_id and a.status = 'failed' limit 1)) as error,
                x.error_message is not null
                  or exists (select 1 from ?? a where a.run_id = x.run_id and a.status = 'failed') as failed
           from ?? x where x.automation_id = au.automation_id order by x.at desc limit ?) r
      where au.account_id = ? and not au.archived
      group by au.automation_id
     having count(*) = ? and bool_and(r.failed)`,
    [
      `${READ_MODEL_SCHEMA}.${AUTOMATIONS_TABLE}`,
      `${READ_MODEL_SCHEMA}.${ACTIONS_TABLE}`,
      `${READ_MODEL_SCHEMA}.${ACTIONS_TABLE}`,
      `${READ_MODEL_SCHEMA}.${RUNS_TABLE}`,
      runs,
      account_id,
      runs,
    ],
  );
  return rows;
}
