import type { Via } from '../../domain/mutation/events.js';
import type { Action, TargetType } from '../../domain/mutation/payloads.js';
import {
  planRevert,
  type ObservedTarget,
  type RevertItem,
  type RevertRequest,
  type TargetNow,
} from '../../domain/revert/plan.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Knex } from '../../infra/db.js';
import { pollUntil } from '../../infra/poll.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { admissionProjection } from '../../projections/admission/projection.js';
import { hasApplied, readCheckpoint } from '../../projections/checkpoints.js';
import { mutationsProjection } from '../../projections/mutations/projection.js';
import { revertSources, type RevertRow, type RevertSelection } from '../../projections/mutations/reverts.js';
import { admitMutations, type AdmissionDeps } from '../admission/admit.js';
import type { AdmissionError, ReceiptView } from '../admission/receipts.js';

// Reverting receipts (docs/decisions/125-revert.md): the receipts selected are read with the
// value each replaced, each target is read live (or, failing that, its latest observation) to
// check it still shows what the latest change set, the plan decides, and the reverts are admitted like any other request (idempotent, block
// flags and switches obeyed, each its own receipt naming the reverted one in `caused_by`).

/** At most as many receipts per call as queue_mutations takes requests. */
export const MAX_REVERTS = 50;

/** How a revert reads the targets it checks. */
export interface TargetReads {
  /** live: whether the target shows what the receipt asked for, and its named part now; throws when it can't */
  live(r: RevertRow): Promise<{ shows: boolean; current: unknown }>;
  /** the same from its latest observation, with when that was made; null when none holds the target */
  observed(r: RevertRow): Promise<ObservedTarget | null>;
}

export interface RevertCall {
  userId: string;
  accounts: readonly AccountView[];
  selection: RevertSelection;
  overwrite: boolean;
  dry_run: boolean;
  idempotency_key?: string | undefined;
  /** what the idempotency fingerprint covers: the call's whole input */
  input: unknown;
  via?: Via;
}

export type RevertOutcomeItem = {
  receipt_id: string;
  result: Exclude<RevertItem['result'], 'revert'> | 'queued' | 'would_queue' | 'refused';
  detail: string | null;
  current?: unknown;
  checked_by?: RevertItem['checked_by'];
  observed_at?: string;
  reverted_by?: string;
  target_type: TargetType;
  target_id: string;
  action: Action;
  /** the change that undoes it (null: none) */
  revert: Omit<RevertRequest, 'reverts'> | null;
  /** its revert's receipt (queued, or blocked: withheld) */
  receipt: ReceiptView | null;
  /** why admission refused its revert */
  error?: AdmissionError;
};

export interface RevertOutcome {
  items: RevertOutcomeItem[];
  replayed: boolean;
  idempotency: { key: string; expires_at: string } | null;
}

/** How long a revert waits for admission's read model to know the entities the receipts created. */
const CREATED_SHOWN_MS = 5_000;

/**
 * A creation's revert archives what it created, which admission resolves through its own read
 * model (created_targets); the receipts were read from the mutations read model, which may be
 * ahead of it (the marketplace's confirmation was projected there first). Waits, bounded, until
 * admission's has applied what the mutations read model showed.
 */
async function createdTargetsShown(db: Knex): Promise<void> {
  const shown = (await readCheckpoint(db, mutationsProjection.name))?.position;
  if (shown) await pollUntil(() => hasApplied(db, admissionProjection.name, shown), CREATED_SHOWN_MS, 20);
}

export async function revertMutations(
  deps: AdmissionDeps,
  reads: TargetReads,
  call: RevertCall,
): Promise<RevertOutcome> {
  const accountIds = call.accounts.map((a) => a.id);
  const sources = await revertSources(deps.db, accountIds, call.selection, MAX_REVERTS + 1);
  checkSelection(call.selection, sources);
  const now = call.overwrite ? new Map<string, TargetNow>() : await readTargets(sources, reads);
  const { items, requests } = planRevert(sources, now, call.overwrite);
  const byId = new Map(sources.map((s) => [s.id, s]));
  const planned = items.map((item) => outcomeItem(item, byId.get(item.receipt_id)!));
  if (call.dry_run || (requests.length === 0 && call.idempotency_key === undefined))
    return { items: planned, replayed: false, idempotency: null };
  if (requests.some((r) => r.action === 'archive')) await createdTargetsShown(deps.db);
  const admitted = await admitMutations(deps, {
    userId: call.userId,
    accounts: call.accounts,
    mutations: requests,
    idempotency_key: call.idempotency_key,
    input: call.input,
    ...(call.via ? { via: call.via } : {}),
  });
  // a replay answers the first call's receipts: they are the reverts this call found already queued
  const receipts = new Map<string, { receipt?: ReceiptView; error?: AdmissionError }>();
  if (admitted.replayed) {
    for (const r of admitted.results) if ('receipt' in r && r.receipt.id) receipts.set(r.receipt.id, r);
  } else for (const r of admitted.results) receipts.set(requests[r.index]!.reverts, r);
  return {
    items: planned.map((item) => {
      const key = admitted.replayed
        ? (item.reverted_by ?? null)
        : item.result === 'would_queue'
          ? item.receipt_id
          : null;
      const answer = key === null ? undefined : receipts.get(key);
      if (!answer && admitted.replayed && item.result === 'would_queue')
        return {
          ...item,
          detail: 'not queued: idempotency_key replayed its first answer, which did not queue it; use a new key',
        };
      if (!answer) return item;
      return answer.receipt
        ? { ...item, result: 'queued', receipt: answer.receipt, detail: item.detail }
        : { ...item, result: 'refused', error: answer.error!, detail: answer.error!.detail };
    }),
    replayed: admitted.replayed,
    idempotency: admitted.idempotency,
  };
}

/** A planned item as answered: the receipt it names, and its revert (not queued yet). */
function outcomeItem(item: RevertItem, s: RevertRow): RevertOutcomeItem {
  const about = { target_type: s.target.type, target_id: s.target.id, action: s.action, receipt: null };
  if (item.result !== 'revert') return { ...item, ...about, revert: null };
  const { request, ...rest } = item;
  return {
    ...rest,
    ...about,
    result: 'would_queue',
    revert: { target: request.target, action: request.action, payload: request.payload },
  };
}

/** Named receipts must all be the caller's; a selection may not reach past MAX_REVERTS. */
function checkSelection(selection: RevertSelection, sources: readonly RevertRow[]): void {
  if ('receipt_ids' in selection) {
    const found = new Set(sources.map((s) => s.id));
    const missing = selection.receipt_ids.findIndex((id) => !found.has(id));
    if (missing >= 0)
      throw new DomainError(
        'invalid',
        `receipt_ids[${missing}]: no receipt '${selection.receipt_ids[missing]}' on your accounts (use an id from list_mutations)`,
        { argument: `receipt_ids[${missing}]` },
      );
  }
  if (sources.length > MAX_REVERTS) {
    const argument = 'automation_id' in selection ? 'since' : 'admitted_with_key';
    throw new DomainError(
      'invalid',
      `${argument}: selects more than ${MAX_REVERTS} receipts; revert at most ${MAX_REVERTS} per call (narrow since, or pass receipt_ids)`,
      { argument },
    );
  }
}

/**
 * What each changed target shows now against the latest change to revert on it (creations are
 * archived whatever they show): read live, or, when that fails, as its latest observation shows it.
 * Not read when overwriting.
 */
async function readTargets(sources: readonly RevertRow[], reads: TargetReads): Promise<Map<string, TargetNow>> {
  const latest = new Map<string, RevertRow>();
  for (const s of sources) if (s.action === 'update') latest.set(`${s.target.type}:${s.target.id}`, s);
  const now = new Map<string, TargetNow>();
  for (const [key, s] of latest) {
    try {
      now.set(key, await reads.live(s));
    } catch (err) {
      now.set(key, { unread: err instanceof Error ? err.message : String(err), observed: await reads.observed(s) });
    }
  }
  return now;
}
