import {
  awaitingCheck,
  blockedError,
  mutationEventSchemas,
  PENDING_STATUSES,
  type MutationEvent,
} from '../../domain/mutation/events.js';
import type { Knex } from 'knex';
import { bindableRuns, eventProjection, type Parsed } from '../tables.js';

// Mutation receipts (spec 2.9): one row per receipt with its current fields, and every event
// of its stream for auditors. A row remembers the last stream revision it applied, so an event
// applied twice changes nothing. Receipts outlive their targets: nothing here deletes.

export const RECEIPTS_TABLE = 'mutation_receipts';
export const RECEIPT_EVENTS_TABLE = 'mutation_receipt_events';

const pendingList = PENDING_STATUSES.map((s) => `'${s}'`).join(', ');
const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** The columns an event sets on its receipt's row. */
function changes(event: MutationEvent): Record<string, unknown> {
  switch (event.type) {
    case 'MutationAdmitted':
      return {}; // inserted whole by admittedRow
    case 'MutationDispatchStarted':
      return { status: 'submitting', attempts: event.data.attempt };
    case 'MutationSubmitted': {
      const d = event.data;
      return {
        ...answer(d),
        status: 'submitted',
        outcome: d.accepted ? 'accepted' : 'rejected',
        accepted: d.accepted,
        submission_id: d.submission_id,
        created: json(d.created),
      };
    }
    case 'MutationRetryScheduled':
      return { ...answer(event.data), status: 'queued', outcome: 'retryable', accepted: null };
    case 'MutationBlocked':
      return {
        status: 'blocked',
        outcome: 'blocked',
        accepted: false,
        error: json(blockedError(event.data.reason, event.data.message)),
        recorded_at: event.data.recorded_at,
      };
    case 'MutationUncertain':
      return {
        ...answer(event.data),
        status: 'uncertain',
        outcome: 'uncertain',
        accepted: null,
        reconciliation: json(awaitingCheck(event.data)),
      };
    case 'MutationReconciliationChecked':
      return { reconciliation: json(event.data.reconciliation) };
    case 'MutationCreationConfirmed': {
      const { reconciliation, created } = event.data;
      return {
        status: 'submitted',
        outcome: 'accepted',
        accepted: true,
        created: json(created),
        reconciliation: json(reconciliation),
        recorded_at: reconciliation.checkedAt,
      };
    }
    case 'MutationChangeConfirmed':
      return {
        status: 'submitted',
        outcome: 'accepted',
        accepted: true,
        reconciliation: json(event.data.reconciliation),
        recorded_at: event.data.reconciliation.checkedAt,
      };
    case 'MutationCreationAbsent':
    case 'MutationChangeAbsent':
      return {
        status: 'submitted',
        outcome: 'absent',
        accepted: false,
        reconciliation: json(event.data.reconciliation),
        recorded_at: event.data.reconciliation.checkedAt,
      };
    case 'MutationUnresolved':
      return {
        status: 'unresolved',
        outcome: 'unresolved',
        accepted: null,
        reconciliation: json(event.data.reconciliation),
        recorded_at: event.data.reconciliation.checkedAt,
      };
    case 'MutationTargetDeleted':
      return { target_deleted_at: event.data.recorded_at };
  }
}

const answer = (d: {
  http_status: number | null;
  response: unknown;
  request_id: string | null;
  error: unknown;
  recorded_at: string;
}) => ({
  http_status: d.http_status,
  response: json(d.response),
  request_id: d.request_id,
  error: json(d.error),
  recorded_at: d.recorded_at,
});

export const mutationsProjection = eventProjection<MutationEvent>({
  name: 'mutations',
  // 2: caused_by (the automation run that admitted a receipt); 3: operation (a qualified key it was queued as);
  // 4: a blocked receipt's error is spec 7's `blocked`, with its reason; 5: indexes of reverts' selections
  version: 5,
  events: mutationEventSchemas,
  tables: {
    [RECEIPTS_TABLE]: {
      columns: {
        id: 'uuid primary',
        account_id: 'uuid',
        target_type: 'text',
        target_id: 'text',
        action: 'text',
        operation: 'text null',
        status: 'text',
        outcome: 'text null',
        accepted: 'boolean null',
        http_status: 'integer null',
        response: 'jsonb null',
        error: 'jsonb null',
        request_id: 'text null',
        submission_id: 'text null',
        recorded_at: 'timestamptz null',
        created: 'jsonb null',
        reconciliation: 'jsonb null',
        payload: 'jsonb',
        provider: 'jsonb',
        idempotency: 'jsonb null',
        caused_by: 'jsonb null',
        idempotency_namespace: 'text null',
        idempotency_key: 'text null',
        attempts: 'integer',
        target_deleted_at: 'timestamptz null',
        created_at: 'timestamptz',
        /** the last stream revision applied to this row */
        revision: 'bigint',
      },
    },
    [RECEIPT_EVENTS_TABLE]: {
      columns: { receipt_id: 'uuid', revision: 'bigint', type: 'text', data: 'jsonb', recorded_at: 'timestamptz' },
      primary: ['receipt_id', 'revision'],
    },
  },
  async afterCreate(db, schema) {
    const table = `${schema}.${RECEIPTS_TABLE}`;
    // list_mutations: an account's receipts newest first (keyset on created_at, id)
    await db.raw(`create index on ?? (account_id, created_at desc, id desc)`, [table]);
    await db.raw(`create index on ?? (account_id, created_at desc, id desc) where status in (${pendingList})`, [table]);
    // a target's receipts: the pending ones, and the latest settled one
    await db.raw(`create index on ?? (target_type, target_id, created_at, id)`, [table]);
    await db.raw(`create index on ?? (target_type, target_id, created_at, id) where status in (${pendingList})`, [
      table,
    ]);
    // a listing's context: what its own automation runs created
    await db.raw(`create index on ?? ((provider->>'sourceListingId')) where created is not null`, [table]);
    await db.raw(`create index on ?? (idempotency_namespace, idempotency_key) where idempotency_key is not null`, [
      table,
    ]);
    // revert_mutations: the receipts reverting one, and an automation's changes since an instant
    await db.raw(`create index on ?? ((caused_by->>'reverts')) where caused_by->>'reverts' is not null`, [table]);
    await db.raw(
      `create index on ?? ((caused_by->>'automation_id'), created_at) where caused_by->>'automation_id' is not null`,
      [table],
    );
  },
  async apply(trx, event, recorded, schema) {
    const receipt_id = event.data.receipt_id;
    const revision = recorded.revision.toString();
    await insertNew(trx, schema, RECEIPT_EVENTS_TABLE, [historyRow({ event, recorded })], HISTORY_KEY);
    if (event.type === 'MutationAdmitted')
      return insertNew(trx, schema, RECEIPTS_TABLE, [admittedRow(event.data, revision)], ['id']);
    await advanceRow(trx, schema, receipt_id, changes(event), revision);
  },
  applyMany,
});

function admittedRow(
  d: Extract<MutationEvent, { type: 'MutationAdmitted' }>['data'],
  revision: string,
): Record<string, unknown> {
  return {
    id: d.receipt_id,
    account_id: d.account_id,
    target_type: d.target.type,
    target_id: d.target.id,
    action: d.action,
    operation: d.operation ?? null,
    status: d.blocked ? 'blocked' : 'queued',
    outcome: d.blocked ? 'blocked' : null,
    accepted: d.blocked ? false : null,
    error: d.blocked ? json(blockedError(d.blocked.reason, d.blocked.message)) : null,
    recorded_at: d.blocked ? d.created_at : null,
    payload: json(d.payload),
    provider: json(d.provider),
    idempotency: json(d.idempotency),
    caused_by: json(d.caused_by),
    idempotency_namespace: d.idempotency?.namespace ?? null,
    idempotency_key: d.idempotency?.key ?? null,
    attempts: 0,
    created_at: d.created_at,
    revision,
  };
}

type ParsedMutation = Parsed<MutationEvent>;

const historyRow = ({ event, recorded }: ParsedMutation) => ({
  receipt_id: event.data.receipt_id,
  revision: recorded.revision.toString(),
  type: event.type,
  data: JSON.stringify(event.data),
  recorded_at: recorded.createdAt,
});

const HISTORY_KEY = ['receipt_id', 'revision'];

/** Inserts the rows whose key is not there yet (an event applied twice inserts nothing). */
async function insertNew(
  trx: Knex.Transaction,
  schema: string,
  table: string,
  rows: Record<string, unknown>[],
  key: string[],
): Promise<void> {
  for (const run of bindableRuns(rows)) await trx.withSchema(schema).table(table).insert(run).onConflict(key).ignore();
}

/** Sets a receipt's row to `changes` at `revision`, unless the row has applied that revision already. */
async function advanceRow(
  trx: Knex.Transaction,
  schema: string,
  id: string,
  changes: Record<string, unknown>,
  revision: string,
): Promise<void> {
  await trx
    .withSchema(schema)
    .table(RECEIPTS_TABLE)
    .where({ id })
    .andWhere('revision', '<', revision)
    .update({
      ...changes,
      revision,
    });
}

/**
 * A batch set-based: the history and the admitted receipts in multi-row inserts, then one update
 * per receipt with the changes of its events its row has not applied yet, folded in order (each
 * event sets whole columns, so the last to set one wins, as one update per event would leave it).
 * Under live load a receipt's admission, start and answer often share a batch: one insert, no update.
 */
async function applyMany(trx: Knex.Transaction, batch: readonly ParsedMutation[], schema: string): Promise<void> {
  await insertNew(trx, schema, RECEIPT_EVENTS_TABLE, batch.map(historyRow), HISTORY_KEY);
  const admitted = batch.flatMap(({ event, recorded }) =>
    event.type === 'MutationAdmitted' ? [admittedRow(event.data, recorded.revision.toString())] : [],
  );
  await insertNew(trx, schema, RECEIPTS_TABLE, admitted, ['id']);
  const later = batch.filter(({ event }) => event.type !== 'MutationAdmitted');
  if (later.length === 0) return;
  const ids = [...new Set(later.map(({ event }) => event.data.receipt_id))];
  const applied = new Map<string, bigint>(
    (await trx.withSchema(schema).table(RECEIPTS_TABLE).whereIn('id', ids).select('id', 'revision')).map(
      (r: { id: string; revision: string }) => [r.id, BigInt(r.revision)],
    ),
  );
  const folded = new Map<string, { changes: Record<string, unknown>; revision: bigint }>();
  for (const { event, recorded } of later) {
    const id = event.data.receipt_id;
    const at = applied.get(id);
    // no row (its admission is not in this read model): one update per event would match none either
    if (at === undefined || recorded.revision <= at) continue;
    folded.set(id, { changes: { ...folded.get(id)?.changes, ...changes(event) }, revision: recorded.revision });
  }
  for (const [id, f] of folded) await advanceRow(trx, schema, id, f.changes, f.revision.toString());
}
