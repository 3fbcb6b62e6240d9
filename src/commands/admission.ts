import type { Knex } from 'knex';
import type { IdempotencyKeyUsed, RecordedResult } from '../domain/admission/events.js';
import {
  creationStreamId,
  fingerprint,
  foreignMarketplaceSelector,
  IDEMPOTENCY_TTL_MS,
  idempotencyStreamId,
  idempotencyVerdict,
  isQualifiedAction,
} from '../domain/admission/rules.js';
import { decide, type MutationCommand } from '../domain/mutation/decide.js';
import { PENDING_STATUSES, type MutationEvent, type MutationEventOf } from '../domain/mutation/events.js';
import {
  ACTIONS,
  allowedActions,
  isCreation,
  TARGET_TYPES,
  type Action,
  type TargetType,
} from '../domain/mutation/payloads.js';
import { evolve, initialState, type ReceiptState } from '../domain/mutation/state.js';
import { DomainError } from '../domain/shared/errors.js';
import { newOrderedId } from '../domain/shared/ids.js';
import { NO_STREAM, type EventStore } from '../eventstore/port.js';
import type { AccountView } from '../projections/accounts/queries.js';
import {
  admissionsPaused,
  advertisedListing,
  hasAsin,
  pendingIdentical,
  resolveTarget,
  type CurrentListing,
} from '../projections/admission/queries.js';
import type { Logger } from '../infra/logger.js';
import { withheldReason } from './dispatch-control.js';
import { underAdmissionLocks } from './admission-locks.js';
import { notifyQueued, type DispatchNotifier } from './dispatch-notifier.js';
import { streamName, type CommandContext } from './handler.js';
import { executeMutationCommand } from './mutations.js';
import { listingId } from '../domain/observation/ids.js';

// Admission of mutation requests (spec 4.8, 4.12, 3.4): each `{ target, action, payload }` is
// resolved to a target on the caller's own account (local id → provider ids of it and its
// parents), checked, and decided by the receipt aggregate; each result (a queued receipt or a
// rejection) stands on its own. Two things must hold under concurrency, so they run under
// advisory locks with their record in the event store: an idempotency key answers every retry
// the same, and an identical creation is refused while one on the same parent is pending.

export interface MutationRequest {
  target: { type: string; id: string };
  action: string;
  payload: Record<string, unknown>;
}

export interface AdmissionCall {
  userId: string;
  /** every account of the caller (targets are looked up among them) */
  accounts: readonly AccountView[];
  /** the account the write applies to (spec 1.5) */
  account: AccountView;
  mutations: readonly MutationRequest[];
  idempotency_key?: string | undefined;
  /** what the idempotency fingerprint covers: the call's whole input */
  input: unknown;
}

export interface AdmissionDeps {
  db: Knex;
  /** null: simulate (the demo endpoint): validate and decide, record nothing */
  store: EventStore | null;
  now: Date;
  /** hands newly queued receipts to the dispatch workers; absent, they wait for the workers' sweep */
  notifier?: DispatchNotifier;
  logger: Pick<Logger, 'warn'>;
}

export interface ReceiptView {
  id: string | null;
  account_id: string;
  status: string;
  outcome: string | null;
  accepted: boolean | null;
  /** why a blocked receipt is withheld, or the last provider error of a replayed one */
  error: { code: string; message: string } | null;
  target_type: TargetType;
  target_id: string;
  action: Action;
  payload: Record<string, unknown>;
  provider: Record<string, string>;
  created_at: string;
  idempotency?: { key: string; expires_at: string };
}

export type AdmissionResult =
  | { index: number; receipt: ReceiptView }
  | { index: number; error: { code: string; detail: string } & Record<string, unknown> };

export interface AdmissionOutcome {
  results: AdmissionResult[];
  replayed: boolean;
  idempotency: { key: string; expires_at: string } | null;
}

type Admit = Extract<MutationCommand, { type: 'AdmitMutation' }>;
type Prepared = { command: Admit } | { error: DomainError };

const fail = (
  code: DomainError['code'],
  detail: string,
  extra: Record<string, unknown> = {},
): { error: DomainError } => ({ error: new DomainError(code, detail, extra) });

/** Resolves and checks one request; never throws for the request's own faults. */
async function prepare(
  db: Knex,
  store: EventStore | null,
  call: AdmissionCall,
  m: MutationRequest,
  index: number,
  idempotency: Admit['idempotency'],
  now: Date,
): Promise<Prepared> {
  const at = `mutations[${index}]`;
  const type = m.target.type as TargetType;
  if (!TARGET_TYPES.includes(type))
    return fail(
      'invalid',
      `${at}.target.type: '${m.target.type}' is not a target type; one of ${TARGET_TYPES.join(', ')}`,
      { argument: `${at}.target.type` },
    );
  if (isQualifiedAction(m.action)) {
    return fail(
      'operation_unavailable',
      `${at}.action: the catalog operation '${m.action}' is cataloged but cannot be queued: no reviewed adapter runs qualified operations yet; use one of ${ACTIONS.join(', ')}`,
      { argument: `${at}.action`, reason: 'adapter_missing' },
    );
  }
  const action = m.action as Action;
  if (!ACTIONS.includes(action))
    return fail('invalid', `${at}.action: '${m.action}' is not an action; one of ${ACTIONS.join(', ')}`, {
      argument: `${at}.action`,
    });
  const allowed = allowedActions(type);
  if (!allowed.includes(action)) {
    return fail(
      'invalid',
      `${at}.action: ${action} does not apply to a ${type} target; ${allowed.length ? `it takes ${allowed.join(', ')}` : 'it takes none of the six actions'}`,
      { argument: `${at}.action`, allowed_actions: allowed },
    );
  }
  const target = { type, id: m.target.id.trim().toLowerCase() };
  const resolved = await resolveTarget(
    db,
    call.accounts.map((a) => a.id),
    target,
  );
  if (!resolved)
    return fail(
      'target_not_found',
      `${at}.target: no ${type} with id '${m.target.id}' on your accounts (use an id from list_listings or list_ads_entities)`,
      { argument: `${at}.target` },
    );
  if (resolved.account_id !== call.account.id) {
    const owner = call.accounts.find((a) => a.id === resolved.account_id)!;
    return fail(
      'scope_mismatch',
      `${at}.target: the ${type} '${target.id}' belongs to account ${owner.id} (${owner.name}), not to account ${call.account.id} (${call.account.name}) this call writes to`,
      { argument: `${at}.target` },
    );
  }
  const provider = { ...resolved.provider };
  if (type === 'Listing' && call.account.selling) provider.sellerId = call.account.selling.provider_id;
  const command: Admit = {
    type: 'AdmitMutation',
    receipt_id: newOrderedId(),
    account_id: call.account.id,
    target,
    provider,
    action,
    payload: m.payload,
    idempotency,
    created_at: now.toISOString(),
    blocked: null,
  };
  try {
    decide(command, initialState());
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const argument = typeof err.extra.argument === 'string' ? `${at}.${err.extra.argument}` : at;
    return { error: new DomainError(err.code, `${at}.${err.detail}`, { ...err.extra, argument }) };
  }
  // an ad's requests are its listing's advertising changes (spec 3.5): that listing's flag holds them too
  const advertised =
    type === 'Ad'
      ? resolved.facts.advertised
      : action === 'create_ad'
        ? { sku: (m.payload.sku as string | undefined) ?? null, asin: (m.payload.asin as string | undefined) ?? null }
        : undefined;
  const listing = advertised ? await advertisedListing(db, call.account.id, provider.marketplaceId!, advertised) : null;
  const refusal = await rulesBeyondSchema(db, call.account, command, { ...resolved.facts, listing });
  if (refusal)
    return {
      error: new DomainError(refusal.code, `${at}.${refusal.detail}`, {
        argument: `${at}.${refusal.extra.argument as string}`,
      }),
    };
  const admitted = listing
    ? {
        ...command,
        provider: { ...provider, listingId: listingId(listing.account_id, listing.marketplace_id, listing.sku) },
      }
    : command;
  // a blocked listing or a campaign with its Automation switch off: recorded, never sent (spec 3.3);
  // the demo records no flags, so nothing is withheld there
  return { command: { ...admitted, blocked: store && (await withheldReason(store, admitted)) } };
}

/** What the payload schemas and decide can't check alone: selectors against the listing, the account's ads connection and products, exclusions (spec 4.5, 4.12.5). */
async function rulesBeyondSchema(
  db: Knex,
  account: AccountView,
  c: Admit,
  facts: { negative?: boolean; listing: CurrentListing | null },
): Promise<DomainError | null> {
  const p = c.payload;
  const foreign = c.target.type === 'Listing' ? foreignMarketplaceSelector(p, c.provider.marketplaceId!) : null;
  if (foreign) {
    return new DomainError(
      'scope_mismatch',
      `${foreign.path}: '${foreign.given}' is not the listing's marketplace ${c.provider.marketplaceId}`,
      { argument: foreign.path },
    );
  }
  if (c.action === 'create_campaign' && !account.ads?.connected) {
    return new DomainError(
      'not_connected',
      `payload: creating a campaign needs an authorized advertising connection; account ${account.id} (${account.name}) has none`,
      { argument: 'payload' },
    );
  }
  if (c.action === 'create_ad') {
    const product = p.sku !== undefined ? { sku: p.sku as string } : { asin: p.asin as string };
    // a SKU is the account's when it names a current listing there (found above for the ad's block flag)
    if (
      !('sku' in product
        ? facts.listing !== null
        : await hasAsin(db, account.id, c.provider.marketplaceId!, product.asin))
    ) {
      const [key, value] = Object.entries(product)[0]!;
      return new DomainError(
        'invalid',
        `payload.${key}: the account has no ${key.toUpperCase()} '${value}' in the profile's marketplace ${c.provider.marketplaceId}; an advertised product must be one it already has there`,
        { argument: `payload.${key}` },
      );
    }
  }
  if (c.action === 'update' && c.target.type === 'Target' && facts.negative && p.bid !== undefined) {
    return new DomainError('invalid', 'payload.bid: the target is an exclusion (negative), which takes no bid', {
      argument: 'payload.bid',
    });
  }
  return null;
}

const ACCEPTED: Record<string, boolean> = { accepted: true, rejected: false, blocked: false, absent: false };

function receiptView(
  admitted: MutationEventOf<'MutationAdmitted'>['data'],
  state: ReceiptState,
  simulated: boolean,
): ReceiptView {
  return {
    id: simulated ? null : admitted.receipt_id,
    account_id: admitted.account_id,
    status: state.status!,
    outcome: state.outcome,
    accepted: state.outcome === null || state.status === 'uncertain' ? null : (ACCEPTED[state.outcome] ?? null),
    error: state.error,
    target_type: admitted.target.type,
    target_id: admitted.target.id,
    action: admitted.action,
    payload: admitted.payload,
    provider: admitted.provider,
    created_at: admitted.created_at,
    ...(admitted.idempotency
      ? { idempotency: { key: admitted.idempotency.key, expires_at: admitted.idempotency.expires_at } }
      : {}),
  };
}

/** A receipt as the command would leave it, without recording it. */
function decidedView(command: Admit, simulated: boolean): ReceiptView {
  const events = decide(command, initialState());
  const admitted = events[0] as MutationEventOf<'MutationAdmitted'>;
  return receiptView(admitted.data, events.reduce(evolve, initialState()), simulated);
}

async function readReceipt(
  store: EventStore,
  receipt_id: string,
): Promise<{ admitted: MutationEventOf<'MutationAdmitted'>['data']; state: ReceiptState } | null> {
  const recorded = await store.readStream(streamName('mutation', receipt_id));
  if (recorded.length === 0) return null;
  const events = recorded.map((e) => ({ type: e.type, data: e.data }) as MutationEvent);
  return {
    admitted: (events[0] as MutationEventOf<'MutationAdmitted'>).data,
    state: events.reduce(evolve, initialState()),
  };
}

const errorBody = (e: DomainError) => ({ code: e.code, detail: e.detail, ...e.extra });

/** Admits (or, without a store, simulates) one call's mutations. */
export async function admitMutations(deps: AdmissionDeps, call: AdmissionCall): Promise<AdmissionOutcome> {
  const { db, store, now } = deps;
  const key = call.idempotency_key;
  const fp = fingerprint(call.input);
  const idemStream = key === undefined ? null : streamName('idempotency', idempotencyStreamId(call.userId, key));
  const ctx = (): CommandContext => ({
    store: store!,
    metadata: { actor: { kind: 'user', id: call.userId }, account_id: call.account.id },
  });

  const section = async (reads: Knex, lock: (names: readonly string[]) => Promise<void>): Promise<AdmissionOutcome> => {
    let revision: bigint | null = null;
    if (idemStream && store) {
      const used = await store.readStream(idemStream);
      const latest = used.at(-1);
      revision = latest?.revision ?? null;
      if (idempotencyVerdict((latest?.data as IdempotencyKeyUsed | undefined) ?? null, fp, now) === 'replay')
        return replay(store, ctx, latest!.data as IdempotencyKeyUsed);
    }
    const paused = await admissionsPaused(reads);
    if (paused.disabled) {
      throw new DomainError(
        'admissions_disabled',
        `an operator paused new provider write requests${paused.reason ? ` (${paused.reason})` : ''}; nothing was queued; requests queued earlier are unaffected. Retry later`,
      );
    }
    const expires_at = new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString();
    const idempotency = key === undefined ? null : { namespace: call.userId, key, fingerprint: fp, expires_at };
    const prepared: Prepared[] = [];
    for (const [i, m] of call.mutations.entries())
      prepared.push(await prepare(reads, store, call, m, i, idempotency, now));

    const guards = creationGuards(prepared);
    if (store) await lock([...guards.values()]);
    const guardRevisions = await refuseIdenticalPending(reads, store, prepared, guards);

    const results: AdmissionResult[] = prepared.map((p, index) =>
      'command' in p
        ? { index, receipt: decidedView(p.command, store === null) }
        : { index, error: errorBody(p.error) },
    );
    const outcome: AdmissionOutcome = {
      results,
      replayed: false,
      idempotency: idempotency && { key: idempotency.key, expires_at },
    };
    if (!store) return outcome;

    const admissions = prepared.flatMap((p) => ('command' in p ? [p.command] : []));
    if (idemStream) {
      const recorded: RecordedResult[] = prepared.map((p) =>
        'command' in p ? { receipt_id: p.command.receipt_id } : { error: errorBody(p.error) },
      );
      const used: IdempotencyKeyUsed = { ...idempotency!, results: recorded, admissions };
      await store.appendToStream(
        idemStream,
        [{ type: 'IdempotencyKeyUsed', data: used, metadata: { ...ctx().metadata, at: now.toISOString() } }],
        { expectedRevision: revision ?? NO_STREAM },
      );
    }
    for (const [i, guard] of guards) {
      const p = prepared[i]!;
      if (!('command' in p)) continue;
      const data = { receipt_id: p.command.receipt_id, at: now.toISOString() };
      await store.appendToStream(
        guard,
        [{ type: 'CreationRequested', data, metadata: { ...ctx().metadata, at: now.toISOString() } }],
        { expectedRevision: guardRevisions.get(guard) ?? NO_STREAM },
      );
    }
    for (const command of admissions) await executeMutationCommand(ctx(), command);
    return outcome;
  };

  if (!store) return section(db, async () => undefined);
  const outcome = await underAdmissionLocks(db, idemStream ? [idemStream] : [], ({ trx, lock }) => section(trx, lock));
  // a replay's receipts were handed over when first admitted (and the sweep has them anyway)
  if (deps.notifier && !outcome.replayed)
    await notifyQueued(deps.notifier, lastQueuedOfEachTarget(outcome.results), deps.logger);
  return outcome;
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

/** The guard stream of each creation: one per (account, parent, action, payload). */
function creationGuards(prepared: readonly Prepared[]): Map<number, string> {
  const guards = new Map<number, string>();
  prepared.forEach((p, i) => {
    if ('command' in p && isCreation(p.command.action))
      guards.set(
        i,
        streamName(
          'creation',
          creationStreamId(p.command.account_id, p.command.target, p.command.action, p.command.payload),
        ),
      );
  });
  return guards;
}

/**
 * Replaces with a refusal each creation identical to a pending one (spec 3.4) or to an earlier one
 * of the same call; answers the revision each guard stream was read at.
 */
async function refuseIdenticalPending(
  reads: Knex,
  store: EventStore | null,
  prepared: Prepared[],
  guards: ReadonlyMap<number, string>,
): Promise<Map<string, bigint | null>> {
  const revisions = new Map<string, bigint | null>();
  const claimedHere = new Set<string>();
  for (const [i, guard] of guards) {
    const { command } = prepared[i] as { command: Admit };
    const what = `mutations[${i}]: an identical ${command.action} on this ${command.target.type}`;
    if (claimedHere.has(guard)) {
      prepared[i] = {
        error: new DomainError('invalid', `${what} comes earlier in this call`, { argument: `mutations[${i}]` }),
      };
      continue;
    }
    const pending = await pendingCreation(reads, store, guard, command, revisions);
    if (pending) {
      const detail = `${what} is already ${pending.status} (receipt ${pending.receipt_id}); it is refused until that one settles`;
      prepared[i] = {
        error: new DomainError('invalid', detail, {
          argument: `mutations[${i}]`,
          pending_receipt_id: pending.receipt_id,
        }),
      };
      continue;
    }
    claimedHere.add(guard);
  }
  return revisions;
}

/** The receipt of the latest identical creation when it is still pending (queued, submitting, uncertain). */
async function pendingCreation(
  db: Knex,
  store: EventStore | null,
  guard: string,
  command: Admit,
  revisions: Map<string, bigint | null>,
): Promise<{ receipt_id: string; status: string } | null> {
  if (store) {
    const requested = await store.readStream(guard);
    const last = requested.at(-1);
    revisions.set(guard, last?.revision ?? null);
    if (!last) return null;
    const receipt_id = (last.data as { receipt_id: string }).receipt_id;
    // an empty receipt stream: its admission never completed (under the lock nothing is in flight)
    const receipt = await readReceipt(store, receipt_id);
    return receipt && (PENDING_STATUSES as readonly string[]).includes(receipt.state.status!)
      ? { receipt_id, status: receipt.state.status! }
      : null;
  }
  // simulation reads no event store: the receipts read model answers
  return pendingIdentical(db, command.account_id, command.target, command.action, command.payload);
}

/** The first call's answer again, with each receipt's current status; completes admissions a crash cut short. */
async function replay(
  store: EventStore,
  ctx: () => CommandContext,
  used: IdempotencyKeyUsed,
): Promise<AdmissionOutcome> {
  const results: AdmissionResult[] = [];
  for (const [index, r] of used.results.entries()) {
    if ('error' in r) {
      results.push({ index, error: r.error as { code: string; detail: string } });
      continue;
    }
    let found = await readReceipt(store, r.receipt_id);
    if (!found) {
      const command = used.admissions.find((a) => a.receipt_id === r.receipt_id) as Admit;
      await executeMutationCommand(ctx(), command);
      found = (await readReceipt(store, r.receipt_id))!;
    }
    results.push({ index, receipt: receiptView(found.admitted, found.state, false) });
  }
  return { results, replayed: true, idempotency: { key: used.key, expires_at: used.expires_at } };
}
