import type { Knex } from 'knex';
import { z } from 'zod';
import { prepared } from '../../infra/db.js';
import {
  Created,
  Idempotency,
  OUTCOMES,
  PENDING_STATUSES,
  ReceiptError,
  ReceiptCause,
  Reconciliation,
  STATUSES,
  type Outcome,
  type Status,
} from '../../domain/mutation/events.js';
import { ACTIONS, TARGET_TYPES, type Action, type TargetType } from '../../domain/mutation/payloads.js';
import { DomainError } from '../../domain/shared/errors.js';
import { UUID_PATTERN } from '../../domain/shared/ids.js';
import { instant } from '../../domain/shared/instant.js';
import { afterKeyset, decodeKeyset, encodeKeyset, type Keyset } from '../keyset.js';
import { READ_MODEL_SCHEMA } from '../projection.js';
import { RECEIPT_EVENTS_TABLE, RECEIPTS_TABLE } from './projection.js';

// Reads of the receipts read model (spec 2.9, 4.8): one receipt, a page of an account's
// receipts newest first, and the receipts the read tools attach to each target.

/** A receipt as list_mutations shows it: no payload, no provider response. */
export interface ReceiptSummary {
  id: string;
  account_id: string;
  status: Status;
  outcome: Outcome | null;
  accepted: boolean | null;
  http_status: number | null;
  error: ReceiptError | null;
  request_id: string | null;
  submission_id: string | null;
  recorded_at: string | null;
  target_type: TargetType;
  target_id: string;
  action: Action;
  /** the qualified catalog operation key it was queued as; absent when queued as one of the six actions */
  operation?: string;
  created: Created | null;
  /** `{}` when the result was never in doubt */
  reconciliation: Reconciliation | Record<string, never>;
  /** present only when the caller's own client admitted the receipt with a key */
  idempotency?: Omit<Idempotency, 'namespace' | 'fingerprint'>;
  attempts: number;
  created_at: string;
  /** the automation run (event, automation version, run) that admitted it, or the receipt it reverts; null otherwise */
  caused_by: ReceiptCause | null;
}

/** A whole receipt: with its immutable payload, the raw provider response and the provider ids resolved at admission. */
export interface Receipt extends ReceiptSummary {
  payload: Record<string, unknown>;
  response: unknown;
  provider: Record<string, string>;
}

/** A receipt summary as tools answer it (spec 2.9): the output schema of ReceiptSummary. */
export const receiptSummarySchema = z.object({
  id: z.string().describe('the receipt id (get_mutation id)'),
  account_id: z.string(),
  status: z
    .enum(STATUSES)
    .describe('queued, submitting, submitted, blocked, uncertain, or unresolved (creations only; final)'),
  outcome: z.enum(OUTCOMES).nullable().describe("the provider call's result; null until there is one"),
  accepted: z
    .boolean()
    .nullable()
    .describe('true once the marketplace accepted it for processing, false when it rejected it, null while unknown'),
  http_status: z
    .number()
    .int()
    .nullable()
    .describe('HTTP status of the provider call (a 207 can hold rejected or partial results: read outcome)'),
  error: ReceiptError.nullable().describe('the provider or validation error, when there is one'),
  request_id: z.string().nullable().describe('request id of the provider call that carried it'),
  submission_id: z.string().nullable().describe('the Listings Items submission id (listing patches)'),
  recorded_at: instant.nullable().describe('when the result was recorded'),
  target_type: z.enum(TARGET_TYPES),
  target_id: z.string().describe('the target; for a creation its parent, never the created child'),
  action: z.enum(ACTIONS),
  operation: z
    .string()
    .optional()
    .describe('the qualified catalog operation key it was queued as (action is what it carries out); absent otherwise'),
  created: Created.nullable().describe(
    '{ type, id, providerId } once the marketplace confirmed a creation; otherwise null (always null on a listing)',
  ),
  reconciliation: z
    .union([Reconciliation, z.strictObject({})])
    .describe('result, attempts, checkedAt, nextAt, candidates, cause; {} when the result was never in doubt'),
  idempotency: Idempotency.pick({ key: true, expires_at: true })
    .optional()
    .describe("present only when the caller's own client admitted it with an idempotency key"),
  attempts: z.number().int().nonnegative().describe('provider calls made so far'),
  created_at: instant.describe('when it was admitted'),
  caused_by: ReceiptCause.nullable().describe(
    'the automation run that admitted it (automation_id, automation_version, event_id, run_id, listing_id), or, an extension beyond the spec, { reverts: <receipt id> } for a change revert_mutations queued to undo that receipt; null otherwise',
  ),
});

/** A whole receipt as tools answer it: the output schema of Receipt. */
export const receiptSchema = receiptSummarySchema.extend({
  payload: z.record(z.string(), z.unknown()).describe('the immutable payload as admitted'),
  response: z.unknown().describe('the raw provider response; null before any'),
  provider: z
    .record(z.string(), z.string())
    .describe('provider ids of the target and its parents, resolved at admission'),
});

export interface ReceiptHistoryEntry {
  revision: number;
  type: string;
  recorded_at: string;
  data: Record<string, unknown>;
}

/** A receipt's row in the read model. */
export interface ReceiptRow {
  id: string;
  account_id: string;
  target_type: TargetType;
  target_id: string;
  action: Action;
  operation: string | null;
  status: Status;
  outcome: Outcome | null;
  accepted: boolean | null;
  http_status: number | null;
  response?: unknown;
  error: ReceiptError | null;
  request_id: string | null;
  submission_id: string | null;
  recorded_at: Date | null;
  created: Created | null;
  reconciliation: Reconciliation | null;
  payload?: Record<string, unknown>;
  provider?: Record<string, string>;
  caused_by: ReceiptCause | null;
  idempotency: Idempotency | null;
  attempts: number;
  created_at: Date;
}

const SUMMARY_COLUMNS = [
  'id',
  'account_id',
  'target_type',
  'target_id',
  'action',
  'operation',
  'status',
  'outcome',
  'accepted',
  'http_status',
  'error',
  'request_id',
  'submission_id',
  'recorded_at',
  'created',
  'reconciliation',
  'idempotency',
  'attempts',
  'created_at',
  'caused_by',
];
const FULL_COLUMNS = [...SUMMARY_COLUMNS, 'payload', 'response', 'provider'];

const receipts = (db: Knex) => db.withSchema(READ_MODEL_SCHEMA).table(RECEIPTS_TABLE);

function summary(r: ReceiptRow): ReceiptSummary {
  return {
    id: r.id,
    account_id: r.account_id,
    status: r.status,
    outcome: r.outcome,
    accepted: r.accepted,
    http_status: r.http_status,
    error: r.error,
    request_id: r.request_id,
    submission_id: r.submission_id,
    recorded_at: r.recorded_at?.toISOString() ?? null,
    target_type: r.target_type,
    target_id: r.target_id,
    action: r.action,
    ...(r.operation ? { operation: r.operation } : {}),
    created: r.created,
    reconciliation: r.reconciliation ?? {},
    ...(r.idempotency ? { idempotency: { key: r.idempotency.key, expires_at: r.idempotency.expires_at } } : {}),
    attempts: r.attempts,
    created_at: r.created_at.toISOString(),
    caused_by: r.caused_by ?? null,
  };
}

const full = (r: ReceiptRow): Receipt => ({
  ...summary(r),
  payload: r.payload!,
  response: r.response ?? null,
  provider: r.provider!,
});

/** One receipt of these accounts, with its event history; null when missing or someone else's. */
export async function getReceipt(
  db: Knex,
  accountIds: readonly string[],
  id: string,
): Promise<{ receipt: Receipt; history: ReceiptHistoryEntry[] } | null> {
  if (!UUID_PATTERN.test(id) || accountIds.length === 0) return null;
  const row: ReceiptRow | undefined = await receipts(db)
    .select(FULL_COLUMNS)
    .where({ id: id.toLowerCase() })
    .whereIn('account_id', accountIds)
    .first();
  if (!row) return null;
  const events: { revision: string; type: string; recorded_at: Date; data: Record<string, unknown> }[] = await db
    .withSchema(READ_MODEL_SCHEMA)
    .table(RECEIPT_EVENTS_TABLE)
    .where({ receipt_id: row.id })
    .orderBy('revision');
  return {
    receipt: full(row),
    history: events.map((e) => ({
      revision: Number(e.revision),
      type: e.type,
      recorded_at: e.recorded_at.toISOString(),
      data: e.data,
    })),
  };
}

export interface ReceiptFilters {
  accountIds: readonly string[];
  /** a workflow status, or `pending` = queued, submitting or uncertain */
  status?: Status | 'pending';
  targetType?: TargetType;
  targetId?: string;
  action?: Action;
  /** a qualified catalog operation key receipts were queued as */
  operation?: string;
  /** matched within the caller's own namespace */
  idempotency?: { namespace: string; key: string };
  cursor?: string;
  limit: number;
}

export interface ReceiptPage {
  mutations: ReceiptSummary[];
  /** null on the last page */
  next_cursor: string | null;
}

// The keyset: (created_at, id) of the last row shown, newest first.
const encodeCursor = (r: ReceiptRow) => encodeKeyset({ at: r.created_at.toISOString(), id: r.id });
function decodeCursor(cursor: string): Keyset {
  const k = decodeKeyset(cursor);
  if (k) return k;
  throw new DomainError('invalid_cursor', `cursor: '${cursor}' is not a next_cursor this tool returned`, {
    argument: 'cursor',
  });
}

/** A page of receipts, newest first, without payloads or provider responses. */
export async function listReceipts(db: Knex, f: ReceiptFilters): Promise<ReceiptPage> {
  if (f.accountIds.length === 0) return { mutations: [], next_cursor: null };
  // per account, a bounded walk down its (created_at, id) index; then the accounts' pages merged
  const q = db
    .from(`${READ_MODEL_SCHEMA}.${RECEIPTS_TABLE} as r`)
    .select(SUMMARY_COLUMNS.map((c) => `r.${c}`))
    .whereRaw('r.account_id = a.account_id');
  if (f.status === 'pending') q.whereIn('status', PENDING_STATUSES);
  else if (f.status) q.where({ status: f.status });
  if (f.targetType) q.where({ target_type: f.targetType });
  if (f.targetId !== undefined) q.where({ target_id: f.targetId });
  if (f.action) q.where({ action: f.action });
  if (f.operation) q.where({ operation: f.operation });
  if (f.idempotency) q.where({ idempotency_namespace: f.idempotency.namespace, idempotency_key: f.idempotency.key });
  if (f.cursor !== undefined) afterKeyset(q, 'r.created_at', 'r.id', decodeCursor(f.cursor));
  q.orderBy([
    { column: 'r.created_at', order: 'desc' },
    { column: 'r.id', order: 'desc' },
  ]).limit(f.limit + 1);
  const { rows } = (await db.raw(
    `select x.* from unnest(?::uuid[]) a(account_id) cross join lateral ? x order by x.created_at desc, x.id desc limit ?`,
    [[...f.accountIds], q, f.limit + 1],
  )) as { rows: ReceiptRow[] };
  const page = rows.slice(0, f.limit);
  return {
    mutations: page.map(summary),
    next_cursor: rows.length > f.limit ? encodeCursor(page[page.length - 1]!) : null,
  };
}

/**
 * The receipts each target shows under `mutations` (spec 2.5, 2.8): every queued, submitting
 * or uncertain one plus the latest settled one, oldest first, whole (payload and response).
 * An advertising profile (spec 2.7) shows the latest settled receipt of each attempted creation
 * instead: one per distinct payload. Targets without receipts are absent from the map.
 */
export async function receiptsForTargets(
  db: Knex,
  targetType: TargetType,
  targetIds: readonly string[],
): Promise<Map<string, Receipt[]>> {
  if (targetIds.length === 0) return new Map();
  const { rows } = await prepared<{ rows: ReceiptRow[] }>(() => receiptsForTargetsQuery(db, targetType, targetIds));
  return receiptsByTarget(rows);
}

/**
 * receiptsForTargets' statement (at least one target, or a query answering the targets' ids as
 * text, read in the same statement): its rows go to receiptsByTarget.
 */
export function receiptsForTargetsQuery(
  db: Knex,
  targetType: TargetType,
  targetIds: readonly string[] | Knex.Raw,
): Knex.Raw {
  const pending = PENDING_STATUSES.map(() => '?').join(', ');
  const columns = FULL_COLUMNS.map((c) => `r.${c}`).join(', ');
  const settled =
    targetType === 'AdvertisingProfile'
      ? `select distinct on (r.payload) ${columns} from ??.?? r where r.target_type = ? and r.target_id = t.target_id and r.status not in (${pending})
         order by r.payload, r.created_at desc, r.id desc`
      : `select ${columns} from ??.?? r where r.target_type = ? and r.target_id = t.target_id and r.status not in (${pending})
         order by r.created_at desc, r.id desc limit 1`;
  const ids = Array.isArray(targetIds) ? [...new Set(targetIds)] : null;
  // one target (a listing's context) as a one-row relation, several as a JSON array's elements:
  // PostgreSQL then settles on a generic plan, where an array's unnest (its length known to a
  // custom plan only) keeps it planning every call
  const relation =
    ids === null ? '(?)' : ids.length === 1 ? `(values (?::text))` : `jsonb_array_elements_text(?::jsonb)`;
  return db.raw(
    `select x.* from ${relation} t(target_id)
     cross join lateral (
       (select ${columns} from ??.?? r where r.target_type = ? and r.target_id = t.target_id and r.status in (${pending}))
       union all
       (${settled})
     ) x
     order by x.target_id, x.created_at, x.id`,
    [
      ids === null ? (targetIds as Knex.Raw) : ids.length === 1 ? ids[0]! : JSON.stringify(ids),
      READ_MODEL_SCHEMA,
      RECEIPTS_TABLE,
      targetType,
      ...PENDING_STATUSES,
      READ_MODEL_SCHEMA,
      RECEIPTS_TABLE,
      targetType,
      ...PENDING_STATUSES,
    ],
  );
}

/** receiptsForTargetsQuery's rows by target; its times may be ISO strings (readTogether). */
export function receiptsByTarget(rows: readonly ReceiptRow[]): Map<string, Receipt[]> {
  const byTarget = new Map<string, Receipt[]>();
  for (const row of rows) {
    const list = byTarget.get(row.target_id) ?? [];
    list.push(
      full({
        ...row,
        recorded_at: row.recorded_at === null ? null : new Date(row.recorded_at),
        created_at: new Date(row.created_at),
      }),
    );
    byTarget.set(row.target_id, list);
  }
  return byTarget;
}

// The dispatcher's lookups: which receipts are pending where. Each receipt's state is then folded
// from its own stream; these only say which receipts to look at.

/** A target's pending receipt as the dispatcher orders it, with what names the flags that may withhold it. */
export interface QueuedReceipt {
  id: string;
  created_at: string;
  account_id: string;
  provider: Record<string, string>;
}

/** A receipt as the dispatcher places it: its target and its place in the target's order. */
export interface ShownReceipt extends QueuedReceipt {
  target: { type: string; id: string };
}

const QUEUED_COLUMNS = ['id', 'created_at', 'account_id', 'provider'] as const;
type QueuedRow = { id: string; created_at: Date; account_id: string; provider: Record<string, string> };
const queued = (r: QueuedRow): QueuedReceipt => ({
  id: r.id,
  created_at: r.created_at.toISOString(),
  account_id: r.account_id,
  provider: r.provider,
});

/**
 * The receipt's place once the read model shows it (null until then), and its target's pending
 * receipts oldest first (admission order), it among them pending or not: one statement.
 */
export async function receiptShown(
  db: Knex,
  id: string,
): Promise<{ receipt: ShownReceipt; queue: QueuedReceipt[] } | null> {
  const columns = QUEUED_COLUMNS.map((c) => `r.${c}`).join(', ');
  const { rows } = await prepared<{ rows: Array<QueuedRow & { target_type: string; target_id: string }> }>(() =>
    db.raw(
      `with me as (select * from ??.?? where id = ?)
       select ${columns}, r.target_type, r.target_id from me r
       union all
       select ${columns}, r.target_type, r.target_id from me
       join ??.?? r on r.target_type = me.target_type and r.target_id = me.target_id
         and r.status in (${PENDING_STATUSES.map(() => '?').join(', ')}) and r.id <> me.id
       order by created_at, id`,
      [READ_MODEL_SCHEMA, RECEIPTS_TABLE, id, READ_MODEL_SCHEMA, RECEIPTS_TABLE, ...PENDING_STATUSES],
    ),
  );
  const me = rows.find((r) => r.id === id);
  return me
    ? { receipt: { ...queued(me), target: { type: me.target_type, id: me.target_id } }, queue: rows.map(queued) }
    : null;
}

/** A target's pending receipts, oldest first (admission order). */
export async function pendingOfTargetIds(db: Knex, target: { type: string; id: string }): Promise<QueuedReceipt[]> {
  const rows = await prepared<QueuedRow[]>(() =>
    receipts(db)
      .where({ target_type: target.type, target_id: target.id })
      .whereIn('status', PENDING_STATUSES)
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select(...QUEUED_COLUMNS),
  );
  return rows.map(queued);
}

/** Queued receipts of other targets that could share one Sponsored Products call with this one. */
export async function queuedAlike(
  db: Knex,
  r: { account_id: string; action: string; target: { type: string; id: string } },
  profileId: string,
  limit: number,
): Promise<ShownReceipt[]> {
  const rows: Array<QueuedRow & { target_id: string }> = await receipts(db)
    .where({ account_id: r.account_id, status: 'queued', action: r.action, target_type: r.target.type })
    .whereNot({ target_id: r.target.id })
    .whereRaw(`provider->>'profileId' = ?`, [profileId])
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(limit)
    .select(...QUEUED_COLUMNS, 'target_id');
  return rows.map((row) => ({ ...queued(row), target: { type: r.target.type, id: row.target_id } }));
}

/** What the sweep re-enqueues: queued and submitting receipts, and uncertain ones whose check is due. */
export async function receiptsToSweep(
  db: Knex,
  now: string,
): Promise<{
  sending: Array<{ id: string; status: string; attempts: number }>;
  due: Array<{ id: string; checks: number }>;
}> {
  const sending: { id: string; status: string; attempts: number }[] = await receipts(db)
    .whereIn('status', ['queued', 'submitting'])
    .select('id', 'status', 'attempts');
  const uncertain: { id: string; reconciliation: { attempts: number } | null }[] = await receipts(db)
    .where({ status: 'uncertain' })
    .andWhere((q) => q.whereNull('reconciliation').orWhereRaw(`(reconciliation->>'nextAt')::timestamptz <= ?`, [now]))
    .select('id', 'reconciliation');
  return { sending, due: uncertain.map((r) => ({ id: r.id, checks: r.reconciliation?.attempts ?? 0 })) };
}

/** The account's pending receipts of Listing targets in a marketplace, with their SKUs, oldest first. */
export async function pendingListingReceipts(
  db: Knex,
  account_id: string,
  marketplaceId: string,
): Promise<Array<{ id: string; sku: string }>> {
  return receipts(db)
    .where({ account_id, target_type: 'Listing' })
    .whereIn('status', PENDING_STATUSES)
    .whereRaw(`provider->>'marketplaceId' = ?`, [marketplaceId])
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('id', db.raw(`provider->>'sku' as sku`));
}

/** What the automation runs of a listing created and the marketplace confirmed (spec 2.8: its context reaches them). */
export type CreatedForListing = { created: Created; provider: Record<string, string> };

/** Rows of CreatedForListing (json columns: readTogether takes it beside others as it is). */
export const createdForListingQuery = (db: Knex, account_id: string, listingId: string) =>
  receipts(db)
    .where({ account_id })
    .whereRaw(`provider->>'sourceListingId' = ?`, [listingId])
    .whereNotNull('created')
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('created', 'provider');
