import { admitMutations, type AdmissionDeps } from '../../commands/admission/admit.js';
import {
  errorBody,
  type AdmissionError,
  type AdmissionResult,
  type ReceiptView,
} from '../../commands/admission/receipts.js';
import type { MutationRequest } from '../../commands/admission/target.js';
import { checkPinnedOperation } from '../../commands/automation/operation-dependencies.js';
import { aggregateStream } from '../../commands/shared/handler.js';
import { isQualifiedAction } from '../../domain/admission/rules.js';
import type { OperationDependencies } from '../../domain/automation/events.js';
import { automationDecider } from '../../domain/automation/decide.js';
import type { CausedBy } from '../../domain/mutation/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { TargetType } from '../../domain/mutation/payloads.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { listingFacts, type ListingFacts } from '../../projections/admission/queries.js';
import { readModelLookups } from '../../commands/admission/lookups.js';
import { outboxOverLimit, readPush, valueOf } from './pushes.js';
import { admitReportPushes, isReportPush } from './reports.js';

// The outbox of one automation run (spec 4.12): what `handle` pushed onto `context.mutations`,
// checked after it returned and admitted through the same command as queue_mutations
// (admitMutations), so admission's rules, block flags, Automation switches and the identical-
// creation guard hold for automations exactly as for agents.
//
// - The run's limits (50 requests, 100,000 payload bytes, 500,000 output bytes) are checked over
//   the whole outbox first: over one, nothing is admitted and `rejected` says why (the live runner
//   records one failed action for it).
// - A target that is not the account's is dropped without a record, and so is a campaign whose id
//   is null (not synced yet): `dropped` lists them for a dry run to show; a live runner records
//   nothing for them (spec 3.3).
// - A listing-triggered run may update only its source listing: another of the account's
//   listings is invalid output. Every request of such a run carries the source listing
//   (`caused_by.listing_id`), so its block flag holds them all.
// - `dry`: decided against the current flags and switches, nothing appended (a dry run, or the
//   demo endpoint when `deps.store` is null); `live`: admitted, at most once per (automation,
//   version, event, listing): a rerun after a crash replays the first answer (`replayed`).
//
// - A qualified catalog action (docs/decisions/119) must be declared in the automation's saved
//   operation_dependencies, its pinned revision still current and its digest unchanged; else it
//   fails (`invalid`, `schema_changed`) and is recorded as such, never admitted on a newer schema.
//
// Each other push comes back as an action (spec 2.10, 3.3): `applied` once admitted (its receipt
// then reports the marketplace's answer), `blocked` (admitted withheld: blocked listing or
// Automation switch off, with the receipt's reason), `failed` (invalid output, with why).

export interface OutboxRun {
  mode: 'dry' | 'live';
  /** the account the automation belongs to; only its targets are admitted */
  account: AccountView;
  /** the automation run: event, automation version, run id, source listing (null outside the Listing scope) */
  caused_by: CausedBy;
  /** the raw outbox as the sandbox copied it out */
  pushed: unknown;
  /** the run's own listing as its context read it (Listing scope): its actions show it without a read */
  listing?: ListingFacts;
  /** the report receipt whose completion the run handles (Report scope): its requests are one deeper */
  parentReport?: string;
}

/** What an automation action shows of a Listing or Ad target's listing (spec 2.10). */
export interface ActionListing {
  asin: string | null;
  sku: string;
  marketplace_id: string;
  title: string | null;
  account_id: string;
  account_name: string;
}

export type OutboxAction = {
  /** the push's position in context.mutations; null for a replayed answer whose output is not known again */
  index: number | null;
  status: 'applied' | 'failed' | 'blocked';
  target: { type: string; id: string | null } | null;
  action: string | null;
  /** the receipt admitted (dry: the one it would get, id null) */
  receipt?: ReceiptView;
  /** a report request's receipt (reports.ts) */
  report_id?: string;
  /** failed: why the output is invalid; blocked: why it is withheld */
  error_message?: string;
  /** failed: the rejection as queue_mutations would answer it */
  error?: AdmissionError;
  /** the price, budget or bid the request sets, in major units; null when it sets none */
  value: number | null;
} & Partial<ActionListing>;

export interface OutboxOutcome {
  /** why the outbox as a whole was refused (a per-run limit); nothing was admitted */
  rejected: string | null;
  actions: OutboxAction[];
  dropped: Array<{ index: number; target: { type: string; id: string | null }; reason: string }>;
  /** a rerun of a run already admitted: the first answer again, nothing admitted twice */
  replayed: boolean;
}

const NOT_THE_ACCOUNTS = 'not a target of the account';
const RESOLVABLE: readonly string[] = ['Listing', 'AdvertisingProfile', 'Campaign', 'AdGroup', 'Ad', 'Target'];

/** How the outbox's requests are admitted: admitMutations, or a live batch's joint admission. */
export type Admit = typeof admitMutations;

/** Checks and admits (live) or decides (dry) one run's outbox. */
export async function admitOutbox(deps: AdmissionDeps & { admit?: Admit }, run: OutboxRun): Promise<OutboxOutcome> {
  const outcome: OutboxOutcome = { rejected: outboxOverLimit(run.pushed), actions: [], dropped: [], replayed: false };
  if (outcome.rejected) return outcome;
  const source = run.caused_by.listing_id;
  const ownListing = (target: { type: string; id: string }) =>
    source !== null && target.type === 'Listing' && target.id.toLowerCase() === source;
  const admitted: Array<{ index: number; request: MutationRequest }> = [];
  const reports: Array<{ index: number; request: MutationRequest }> = [];
  // read once, and only for a run that pushes a qualified key
  let saved: OperationDependencies | undefined;
  const dependencies = async () => (saved ??= await savedDependencies(deps, run));
  for (const [index, raw] of (run.pushed as unknown[]).entries()) {
    const push = readPush(raw, index);
    if ('dropped' in push) outcome.dropped.push({ index, target: push.target, reason: push.dropped });
    else if ('invalid' in push)
      outcome.actions.push({
        index,
        status: 'failed',
        target: push.target,
        action: push.action,
        error_message: push.invalid,
        value: null,
      });
    // the run's own listing is the account's (its context was built from it): no lookup
    else if (!ownListing(push.request.target) && !(await theAccounts(deps, run.account, push.request.target)))
      outcome.dropped.push({ index, target: push.request.target, reason: NOT_THE_ACCOUNTS });
    else if (source && push.request.target.type === 'Listing' && !ownListing(push.request.target))
      outcome.actions.push({
        index,
        status: 'failed',
        target: push.request.target,
        action: push.request.action,
        error_message: `context.mutations[${index}]: a listing-triggered run can update only its own listing ${source}, not ${push.request.target.id}`,
        value: valueOf(push.request),
      });
    else if (isReportPush(push.request)) reports.push({ index, request: push.request });
    else {
      const refused = isQualifiedAction(push.request.action)
        ? await unpinned(deps, await dependencies(), push.request, index)
        : null;
      if (refused)
        outcome.actions.push({
          index,
          status: 'failed',
          target: push.request.target,
          action: push.request.action,
          error_message: `${refused.code}: ${refused.detail}`,
          error: errorBody(refused),
          value: null,
        });
      else admitted.push({ index, request: push.request });
    }
  }
  outcome.actions.push(
    ...(await admitReportPushes(deps, run, reports, reports.length > 0 ? await dependencies() : {})),
  );
  if (admitted.length > 0) {
    const { admit = admitMutations, ...admission } = deps;
    const answer = await (run.mode === 'dry' ? admitMutations : admit)(
      run.mode === 'dry' ? { ...admission, simulate: true } : admission,
      {
        userId: `automation:${run.caused_by.automation_id}`,
        accounts: [run.account],
        account: run.account,
        mutations: admitted.map((a) => a.request),
        input: admitted.map((a) => a.request),
        caused_by: run.caused_by,
      },
    );
    outcome.replayed = answer.replayed;
    for (const result of answer.results) {
      const pushed = answer.replayed ? null : admitted[result.index]!;
      const action = actionOf(result, pushed);
      if (action) outcome.actions.push(action);
      else if (pushed)
        outcome.dropped.push({ index: pushed.index, target: pushed.request.target, reason: NOT_THE_ACCOUNTS });
    }
  }
  outcome.actions.sort((a, b) => (a.index ?? Infinity) - (b.index ?? Infinity));
  outcome.dropped.sort((a, b) => a.index - b.index);
  return withListings(deps, run, outcome);
}

/** The automation's saved operation_dependencies (an inline dry run, or no store: none). */
async function savedDependencies(deps: AdmissionDeps, run: OutboxRun): Promise<OperationDependencies> {
  return deps.store
    ? ((await aggregateStream(deps.store, automationDecider, run.caused_by.automation_id)).state
        .operation_dependencies ?? {})
    : {};
}

/** Why a qualified action may not be admitted for this automation: undeclared, or its pin moved. */
async function unpinned(
  deps: AdmissionDeps,
  dependencies: OperationDependencies,
  request: MutationRequest,
  index: number,
): Promise<DomainError | null> {
  const at = `context.mutations[${index}].action`;
  const pin = dependencies[request.action];
  if (!pin)
    return new DomainError(
      'invalid',
      `${at}: ${request.action} is not declared in the automation's operation_dependencies; declare it with its catalog_revision and schema_digest (update_automation)`,
      { argument: at },
    );
  try {
    await checkPinnedOperation(deps.db, request.action, pin, `operation_dependencies.${request.action}`);
    return null;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return new DomainError(err.code, `${at}: the automation's ${err.detail}`, err.extra);
  }
}

/**
 * Whether the target is the account's (looked up before admission, so a dropped one leaves no
 * trace, not even the run's key). Types no request can target are admission's to refuse.
 */
async function theAccounts(deps: AdmissionDeps, account: AccountView, target: { type: string; id: string }) {
  if (!RESOLVABLE.includes(target.type)) return true;
  const lookups = deps.lookups ?? readModelLookups(deps.db);
  return (await lookups.resolveTarget([account.id], { type: target.type as TargetType, id: target.id })) !== null;
}

/** An admission result as an action; null for a target not found on the account (dropped without a record, spec 3.3). */
function actionOf(
  result: AdmissionResult,
  pushed: { index: number; request: MutationRequest } | null,
): OutboxAction | null {
  if ('receipt' in result) {
    const r = result.receipt;
    return {
      index: pushed?.index ?? null,
      status: r.status === 'blocked' ? 'blocked' : 'applied',
      target: { type: r.target_type, id: r.target_id },
      action: r.action,
      receipt: r,
      ...(r.status === 'blocked' && r.error ? { error_message: r.error.message } : {}),
      value: valueOf(r),
    };
  }
  if (result.error.code === 'target_not_found') return null;
  return {
    index: pushed?.index ?? null,
    status: 'failed',
    target: pushed?.request.target ?? null,
    action: pushed?.request.action ?? null,
    // admission names the request `mutations[i]` of its own call: the handler knows it by its place in the outbox
    error_message: `${result.error.code}: ${retold(result.error.detail, pushed?.index ?? null)}`,
    error: { ...result.error, detail: retold(result.error.detail, pushed?.index ?? null) },
    value: pushed ? valueOf(pushed.request) : null,
  };
}

const retold = (detail: string, index: number | null): string =>
  index === null ? detail : detail.replace(/^mutations\[\d+\]/, `context.mutations[${index}]`);

/** The listing of each Listing or Ad action: the target itself, or the listing the ad advertises. */
async function withListings(
  deps: AdmissionDeps,
  { account, listing }: OutboxRun,
  outcome: OutboxOutcome,
): Promise<OutboxOutcome> {
  const listingOf = (a: OutboxAction): string | null =>
    a.target?.type === 'Listing'
      ? (a.target.id?.toLowerCase() ?? null)
      : a.target?.type === 'Ad'
        ? (a.receipt?.provider.listingId ?? null)
        : null;
  const ids = outcome.actions.map(listingOf).filter((id): id is string => id !== null && id !== listing?.id);
  const facts: Map<string, ListingFacts> = await listingFacts(deps.db, account.id, ids);
  if (listing) facts.set(listing.id, listing);
  for (const a of outcome.actions) {
    const found = facts.get(listingOf(a) ?? '');
    if (!found) continue;
    Object.assign(a, {
      asin: found.asin,
      sku: found.sku,
      marketplace_id: found.marketplace_id,
      title: found.title,
      account_id: account.id,
      account_name: account.name,
    });
  }
  return outcome;
}
