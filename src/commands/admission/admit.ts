import type { Knex } from 'knex';
import { IDEMPOTENCY_TTL_MS, runIdempotency } from '../../domain/admission/idempotency.js';
import { fingerprint, isQualifiedAction } from '../../domain/admission/rules.js';
import { isCreation } from '../../domain/mutation/payloads.js';
import type { CausedBy, Idempotency, Via } from '../../domain/mutation/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Logger } from '../../infra/logger.js';
import type { AccountView } from '../../projections/accounts/queries.js';
import { guardCreations, type Recording } from './creations.js';
import { readModelLookups, type AdmissionLookups } from './lookups.js';
import { admitIdempotently, admitOptimistically, keyLocks, type Admission } from './idempotency.js';
import { underAdmissionLocks, type LockScope } from './locks.js';
import { decidedView, errorBody, type AdmissionOutcome, type AdmissionResult } from './receipts.js';
import { prepareRequest, type MutationRequest, type Prepared } from './target.js';
import { notifyQueued, type DispatchNotifier } from '../mutation/dispatch-notifier.js';
import type { CommandContext } from '../shared/handler.js';

// Admission of mutation requests (spec 4.8, 4.12, 3.4): each `{ target, action, payload }` is
// resolved to a target on the caller's own account and checked (admission-target), then decided
// by the receipt aggregate; each result (a queued receipt or a rejection) stands on its own. Two
// things must hold under concurrency, with their record in the event store: an idempotency key
// answers every retry the same (admission-idempotency: a new key by one exclusive write of key and
// receipts, a key in use under its advisory lock), and an identical creation is refused while one
// on the same parent is pending (admission-creations, under the guard's advisory lock).

export interface AdmissionCall {
  userId: string;
  /** every account of the caller (targets are looked up among them) */
  accounts: readonly AccountView[];
  /**
   * The account every target must be on (an automation run's, a tool's `account`); absent, each
   * target is written on the account it belongs to (spec 4.8: the targets name the account).
   */
  account?: AccountView;
  mutations: readonly MutationRequest[];
  idempotency_key?: string | undefined;
  /** what the idempotency fingerprint covers: the call's whole input */
  input: unknown;
  /**
   * An automation run admitting its outbox (spec 4.12) instead of a tool call: its receipts say
   * so (`caused_by`), carry its source listing (whose block flag then holds them), and the run is
   * admitted once however often it is run again (a key of its own, see runIdempotency).
   */
  caused_by?: CausedBy;
  /** the OAuth client or personal access token of the tool call (who did it, on each receipt) */
  via?: Via;
}

export interface AdmissionDeps {
  db: Knex;
  /** null: simulate (the demo endpoint): validate and decide, record nothing */
  store: EventStore | null;
  now: Date;
  /** hands newly queued receipts to the dispatch workers; absent, they wait for the workers' sweep */
  notifier?: DispatchNotifier;
  logger: Pick<Logger, 'warn'>;
  /** with a store: decide against its block flags and switches, but record nothing (an automation's dry run) */
  simulate?: boolean;
  /** a backtest's (with simulate): targets and the operator's switch as the log had them then, instead of the read models */
  lookups?: AdmissionLookups;
}

/** The key a call is admitted under: the caller's own, or an automation run's. */
function idempotencyOf(call: AdmissionCall, now: Date): Idempotency | null {
  const run = call.caused_by;
  if (run) {
    if (run.event_id === null)
      throw new Error('an automation run on a fabricated event is only ever simulated: it has no event to key it by');
    return runIdempotency({ ...run, event_id: run.event_id }, now);
  }
  if (call.idempotency_key === undefined) return null;
  return {
    namespace: call.userId,
    key: call.idempotency_key,
    fingerprint: fingerprint(call.input),
    expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
  };
}

/** The locks of a call decided without any: one that asks for none (no creation) never calls it. */
const noLocks: LockScope['lock'] = async (names) => {
  if (names.length > 0) throw new Error(`admission asked for locks (${names.join(', ')}) outside a transaction`);
};

/** Admits (or, without a store or when simulating, only decides) one call's mutations. */
export async function admitMutations(deps: AdmissionDeps, call: AdmissionCall): Promise<AdmissionOutcome> {
  const { db, store, now } = deps;
  if (!store || deps.simulate) {
    // a run's key is of no use here: nothing is recorded under it
    const idempotency = call.caused_by ? null : idempotencyOf(call, now);
    const lookups = deps.lookups ?? readModelLookups(db);
    return (await decideAdmissions({ reads: db, lookups, recording: null, flags: store, call, idempotency, now }))
      .outcome;
  }
  const { ctx, idempotency, at, decide } = recordedAdmission(deps, store, call);
  // Locks serve creations (their guards) and a key in use; anything else (a live run's outbox
  // above all) is decided on the pool, with no transaction to hold and the key unread, where the
  // store creates key and receipts atomically (a key in use fails that write).
  let outcome: AdmissionOutcome | null = null;
  if (optimistic(store, call))
    outcome = await admitOptimistically({ ctx, idempotency, at, deciding: decide(db, noLocks) });
  outcome ??= await underAdmissionLocks(db, keyLocks(idempotency), ({ trx, lock }) =>
    admitIdempotently({ ctx, idempotency, at, admit: () => decide(trx, lock) }),
  );
  await announce(deps, outcome);
  return outcome;
}

/** Whether the call may be admitted without locks: on a store that creates atomically, asking for no creation. */
const optimistic = (store: EventStore, call: AdmissionCall): boolean =>
  // a qualified catalog action may be a creation: it takes the locks too
  store.atomicCreation === true && !call.mutations.some((m) => isCreation(m.action) || isQualifiedAction(m.action));

/** A call to be recorded: its context (who caused it), its key, and its decision on a given connection. */
function recordedAdmission(deps: AdmissionDeps, store: EventStore, call: AdmissionCall) {
  const { now } = deps;
  const idempotency = idempotencyOf(call, now);
  const run = call.caused_by;
  // each receipt's event names its own account; the call's other events, the one it is confined to
  const account = call.account ? { account_id: call.account.id } : {};
  const ctx: CommandContext = {
    store,
    metadata: run
      ? {
          // event → run → receipt: the event the run handled is the root, the run the direct cause
          actor: { kind: 'automation', id: run.automation_id },
          ...account,
          correlation_id: run.event_id ?? run.run_id,
          causation_id: run.run_id,
        }
      : { actor: { kind: 'user', id: call.userId }, ...account },
  };
  const decide = (reads: Knex, lock: LockScope['lock'], lookups = readModelLookups(reads)) =>
    decideAdmissions({
      reads,
      lookups,
      recording: { ctx, lock },
      flags: store,
      call,
      idempotency,
      now,
    });
  return { ctx, idempotency, at: now.toISOString(), decide };
}

/**
 * A call that may be admitted without locks (see admitMutations), decided on the pool now with
 * `lookups` (shared by the calls admitTogether decides side by side): what admitTogether writes
 * beside other calls' in one creation. Null for any other call.
 */
export function decidedOptimistically(deps: AdmissionDeps, call: AdmissionCall, lookups: AdmissionLookups) {
  const { store } = deps;
  if (!store || deps.simulate || !optimistic(store, call)) return null;
  const { ctx, idempotency, at, decide } = recordedAdmission(deps, store, call);
  return { ctx, idempotency, at, deciding: decide(deps.db, noLocks, lookups) };
}

/** Hands a call's newly queued receipts to the dispatch workers (a replay's were handed over when first admitted). */
export async function announce(deps: AdmissionDeps, outcome: AdmissionOutcome): Promise<void> {
  if (deps.notifier && !outcome.replayed)
    await notifyQueued(deps.notifier, lastQueuedOfEachTarget(outcome.results), deps.logger);
}

/** Checks and decides each request of the call; of the store, records only the creations' guards. */
async function decideAdmissions({
  reads,
  lookups,
  recording,
  flags,
  call,
  idempotency,
  now,
}: {
  reads: Knex;
  lookups: AdmissionLookups;
  recording: Recording;
  /** where block flags and Automation switches are read; null: nothing is withheld (the demo records none) */
  flags: EventStore | null;
  call: AdmissionCall;
  idempotency: Idempotency | null;
  now: Date;
}): Promise<Admission> {
  // read beside the requests' own reads (on the pool they go side by side), checked before any use
  const pausedRead = lookups.paused();
  pausedRead.catch(() => undefined);
  const prepared = await prepareAll({ reads, lookups, flags, call, idempotency, now });
  const paused = await pausedRead;
  if (paused.disabled) {
    throw new DomainError(
      'admissions_disabled',
      `an operator paused new provider write requests${paused.reason ? ` (${paused.reason})` : ''}; nothing was queued; requests queued earlier are unaffected. Retry later`,
    );
  }
  const decided = await guardCreations({ reads, recording, prepared, at: now.toISOString() });
  return {
    outcome: {
      results: decided.map((p, index) =>
        'command' in p
          ? { index, receipt: decidedView(p.command, recording === null) }
          : { index, error: errorBody(p.error) },
      ),
      replayed: false,
      idempotency: idempotency && { key: idempotency.key, expires_at: idempotency.expires_at },
    },
    recorded: decided.map((p) =>
      'command' in p ? { receipt_id: p.command.receipt_id } : { error: errorBody(p.error) },
    ),
    admissions: decided.flatMap((p) => ('command' in p ? [p.command] : [])),
  };
}

/** Each request resolved and checked, one after another (receipt ids rise in call order). */
async function prepareAll({
  reads,
  lookups,
  flags,
  call,
  idempotency,
  now,
}: {
  reads: Knex;
  lookups: AdmissionLookups;
  flags: EventStore | null;
  call: AdmissionCall;
  idempotency: Idempotency | null;
  now: Date;
}): Promise<Prepared[]> {
  const { accounts, account } = call;
  // a receipt shows the caller's own key only (spec 2.9), never a run's
  const stamped = call.caused_by ? null : idempotency;
  const caused_by = call.caused_by ?? null;
  const prepared: Prepared[] = [];
  for (const [index, request] of call.mutations.entries())
    prepared.push(
      await prepareRequest({
        reads,
        lookups,
        store: flags,
        accounts,
        account,
        request,
        index,
        idempotency: stamped,
        caused_by,
        via: call.via,
        now,
      }),
    );
  return prepared;
}

/**
 * The last receipt of each target among those this call queued (in the dispatcher's order:
 * created_at, then id; one call's receipts share created_at and their ids rise in call order).
 * Its job waits until the read model shows it, and so every earlier request of the target, then
 * works through the target's whole queue in order: one job per target is enough.
 */
function lastQueuedOfEachTarget(results: readonly AdmissionResult[]): string[] {
  const last = new Map<string, string>();
  for (const r of results) {
    if (!('receipt' in r) || r.receipt.status !== 'queued') continue;
    const target = `${r.receipt.target_type}:${r.receipt.target_id}`;
    const id = r.receipt.id!;
    if (!last.has(target) || id > last.get(target)!) last.set(target, id);
  }
  return [...last.values()];
}
