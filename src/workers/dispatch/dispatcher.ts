import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { advanced, type CommandContext } from '../../commands/shared/handler.js';
import {
  executeMutationCommand,
  executeMutationCommands,
  type ReceiptStream,
} from '../../commands/mutation/execute.js';
import { ABSENT_AFTER_MS, mutationDecider, type MutationCommand } from '../../domain/mutation/decide.js';
import { nextDispatch, type Backoff } from '../../domain/mutation/dispatch-order.js';
import type { Created } from '../../domain/mutation/events.js';
import { CREATED_TYPE, isCreation } from '../../domain/mutation/payloads.js';
import { DomainError } from '../../domain/shared/errors.js';
import { pollUntil } from '../../infra/poll.js';
import type { AdsClient } from '../../marketplace/clients/index.js';
import { SP_RESOURCES } from '../../marketplace/clients/ads-sp-types.js';
import {
  pendingOfTargetIds,
  queuedAlike,
  receiptShown,
  receiptsToSweep,
  type QueuedReceipt,
  type ShownReceipt,
} from '../../projections/mutations/queries.js';
import { loadReceipt, TargetQueue, type DispatchReceipt } from './receipts.js';
import { marketplaceRequest, matchesCreation, UnsendableReceipt, type MarketplaceRequest } from './requests.js';
import { send, type Clients, type Verdict } from './send.js';
import {
  namedFields,
  patchedAttributes,
  priorsAlong,
  sameJson,
  showsListingPatches,
  standingPatches,
} from './verify.js';
import { entityId, listEntities, listingAttributes, observe } from './observe.js';
import { adsEntityId } from '../../domain/observation/ids.js';

// The mutation dispatcher (spec 3.4): one request at a time per target, under a PostgreSQL
// advisory lock held for the whole send (a listing's queued patches share it: decision 143); the
// block flag and Automation switch are re-read under it; StartDispatch is recorded before the
// HTTP call, the answer after. Reconciliation asks the marketplace what an uncertain creation
// made, or whether an uncertain change took effect.

export interface DispatcherDeps {
  db: Knex;
  ctx: CommandContext;
  /** clients with the account's credentials; resolving them (token included) happens before
   * StartDispatch, inside the target's lock transaction (`trx`: reads go through it, since the
   * pool's other connections may all be held by other targets' locks) */
  clientsFor(r: DispatchReceipt, trx: Knex): Promise<Clients>;
  /** the service clock, ms */
  now(): number;
  backoff: Backoff;
  /**
   * at most this many receipts share one call (1: no batching): of different targets, one
   * Sponsored Products call; of one listing, one patch call
   */
  batchSize: number;
  /** how often an uncertain receipt's effect is looked for again, until its 10 minutes are up */
  reconcileEveryMs: number;
  /** how long a job waits for the read model to show its receipt before trying again later */
  shownWithinMs?: number;
  /** later work: a retry after its backoff, a reconciliation check */
  later(job: { name: 'dispatch' | 'reconcile'; receipt_id: string; jobId: string; at: number }): Promise<void>;
  logger: Logger;
}

/** Creations found at most this long before the attempt started still count (clock skew with the marketplace). */
const CLOCK_SKEW_MS = 60_000;
const LOCK_CLASS = 0x6d7574; // 'mut'
const SHOWN_WITHIN_MS = 5_000;
/** A receipt the read model hasn't shown for this long is left to the sweep (the projector may be down). */
const UNSHOWN_RETRY_FOR_MS = 10 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

export class Dispatcher {
  constructor(private readonly deps: DispatcherDeps) {}

  /** `known`: the receipt as this worker last read or wrote it (a stale one is read again) */
  private run(command: MutationCommand, known?: ReceiptStream) {
    return executeMutationCommand(this.deps.ctx, command, known);
  }

  /**
   * Works through the target of this receipt until nothing more may go now, one step per
   * transaction: the target lock (and the locks of targets sent along in a batch) is held from
   * the decision until the answer is recorded, then released. Reads under the lock go through
   * its transaction, so a lock holder never waits for a pool connection that waiting jobs hold.
   */
  async dispatchFor(receipt_id: string): Promise<void> {
    // its place and its target's queue from the read model: their states are read from their
    // streams under the lock
    const shown = await this.shown(receipt_id);
    if (!shown) {
      const admitted = await loadReceipt(this.deps.ctx.store, receipt_id);
      return admitted ? this.unshown(admitted) : undefined;
    }
    const { receipt } = shown;
    const key = `${receipt.target.type}:${receipt.target.id}`;
    // the first step takes the queue as read with the receipt: receipts settled meanwhile read as
    // settled from their streams, and one admitted meanwhile has a job of its own
    let listed: readonly QueuedReceipt[] | null = shown.queue;
    let more = true;
    while (more) {
      more = await this.deps.db.transaction(async (trx) => {
        // a worker that dies mid-send releases it with its connection
        await trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [LOCK_CLASS, key]);
        const queue = listed ?? (await pendingOfTargetIds(trx, receipt.target));
        listed = null;
        return this.step(trx, receipt, queue);
      });
    }
  }

  /**
   * The target's earlier requests are found through the read model, so a job (added at admission,
   * maybe before the projector got there) waits until it shows the job's own receipt: the log is
   * projected in order, so it then shows every request admitted before it, and those go first.
   * Not shown in time (a projector busy with a backfill): `unshown`.
   */
  private async shown(receipt_id: string): Promise<{ receipt: ShownReceipt; queue: QueuedReceipt[] } | null> {
    let shown: { receipt: ShownReceipt; queue: QueuedReceipt[] } | null = null;
    await pollUntil(
      async () => (shown = await receiptShown(this.deps.db, receipt_id)) !== null,
      this.deps.shownWithinMs ?? SHOWN_WITHIN_MS,
      50,
    );
    return shown;
  }

  /**
   * Tries again a few seconds on, without holding a worker slot meanwhile, so a lagging read
   * model delays a request by its lag rather than until the next sweep; past
   * UNSHOWN_RETRY_FOR_MS the sweep (which enqueues what the read model shows) takes it.
   */
  private async unshown(receipt: DispatchReceipt): Promise<void> {
    const now = this.deps.now();
    if (now - Date.parse(receipt.created_at) > UNSHOWN_RETRY_FOR_MS) return;
    const wait = this.deps.shownWithinMs ?? SHOWN_WITHIN_MS;
    await this.deps.later({
      name: 'dispatch',
      receipt_id: receipt.id,
      jobId: `${receipt.id}-unshown-${now}`,
      at: now + wait,
    });
  }

  /** One step for the target, whose pending receipts the read model lists as `listed`; true when there may be more to do now. */
  private async step(trx: Knex.Transaction, receipt: ShownReceipt, listed: readonly QueuedReceipt[]): Promise<boolean> {
    const now = this.deps.now();
    const queue = this.queueOf(receipt.target, listed, receipt);
    const receipts = await queue.pending((prefix) => nextDispatch(prefix, now, this.deps.backoff).kind !== 'idle');
    const step = nextDispatch(receipts, now, this.deps.backoff);
    const r = receipts.find((x) => 'receipt_id' in step && x.id === step.receipt_id);
    switch (step.kind) {
      case 'idle':
      case 'held':
        return false;
      case 'wait':
        await this.deps.later({
          name: 'dispatch',
          receipt_id: step.receipt_id,
          jobId: `${step.receipt_id}-retry-${r!.attempts}`,
          at: step.until,
        });
        return false;
      case 'interrupted':
        await this.interrupted(r!);
        return true;
      case 'send':
        // Another step only when there is something left for it: a receipt behind this one, or
        // this one's retry to schedule. A request admitted meanwhile has a job of its own, which
        // waits for this lock (one more transaction per send otherwise, to find nothing).
        return this.sendNext(trx, r!, queue);
    }
  }

  /** A target's queue, read from the store a batch at a time (a send's followers come with it). */
  private queueOf(target: { type: string; id: string }, listed: readonly QueuedReceipt[], also: QueuedReceipt) {
    return new TargetQueue(this.deps.ctx.store, target, listed, also, Math.max(1, this.deps.batchSize));
  }

  private async interrupted(r: DispatchReceipt): Promise<void> {
    const now = this.deps.now();
    this.deps.logger.warn({ receipt_id: r.id }, 'receipt found submitting with no sender: uncertain, never resent');
    await this.run(
      {
        type: 'RecordUncertain',
        receipt_id: r.id,
        cause: 'ambiguous',
        http_status: null,
        response: null,
        request_id: null,
        error: {
          code: 'interrupted',
          message: 'the dispatcher stopped while sending; the marketplace may or may not have applied the request',
        },
        recorded_at: iso(now),
      },
      r.known,
    );
    await this.checkSoon(r.id, now);
  }

  /**
   * Sends the target's next request (blocked or unsendable, settles it), with what may share its
   * call; true when there is more for the target: a retry to schedule, or receipts behind those sent.
   */
  private async sendNext(trx: Knex.Transaction, r: DispatchReceipt, queue: TargetQueue): Promise<boolean> {
    const { order } = queue;
    const behind = (id: string) => order.indexOf(id) < order.length - 1;
    const withheld = await queue.withheld(r);
    if (withheld) {
      await this.run(
        { type: 'BlockMutation', receipt_id: r.id, ...withheld, recorded_at: iso(this.deps.now()) },
        r.known,
      );
      return behind(r.id);
    }
    let request: MarketplaceRequest;
    try {
      request = marketplaceRequest(r);
    } catch (err) {
      if (!(err instanceof UnsendableReceipt)) throw err;
      await this.run({ type: 'StartDispatch', receipt_id: r.id, started_at: iso(this.deps.now()) });
      await this.run({
        type: 'RecordSubmission',
        receipt_id: r.id,
        http_status: null,
        response: null,
        request_id: null,
        error: { code: 'unsendable', message: err.message },
        submission_id: null,
        accepted: false,
        created: null,
        recorded_at: iso(this.deps.now()),
      });
      return behind(r.id);
    }
    const clients = await this.deps.clientsFor(r, trx);
    const batch = [
      { receipt: r, request },
      ...(request.api === 'listings'
        ? await this.followers(r, request, queue)
        : await this.companions(trx, r, request)),
    ];
    const priors = await this.priors(batch, clients);
    const sent_with = request.api === 'listings' && batch.length > 1 ? batch.map((b) => b.receipt.id) : undefined;
    // every start in one write; each receipt as its start left it: the answer is decided on it
    // without reading the stream again
    const started_at = iso(this.deps.now());
    const starts = await executeMutationCommands(
      this.deps.ctx,
      batch.map(({ receipt }) => ({
        command: {
          type: 'StartDispatch' as const,
          receipt_id: receipt.id,
          started_at,
          ...(priors.has(receipt.id) ? { prior: priors.get(receipt.id) } : {}),
          ...(sent_with ? { sent_with } : {}),
        },
        known: receipt.known,
      })),
    );
    const started = batch.map(({ receipt }, i) => advanced(mutationDecider, receipt.known, starts[i]!));
    const verdicts = await send(clients, batch);
    await this.record(
      batch.map((b) => b.receipt),
      verdicts,
      iso(this.deps.now()),
      started,
    );
    // the last of this target's receipts sent (companions are other targets')
    const last = request.api === 'listings' ? batch.at(-1)!.receipt : r;
    return verdicts.some((v) => v.kind === 'retryable') || behind(last.id);
  }

  /**
   * The target's queued patches right behind `r`, in admission order, that can share its call (one
   * patch document per SKU): the next to go, same SKU, marketplace and product type, nothing
   * withholding them, and a prior that can be told (`priorsAlong`: no attribute of theirs that one
   * before them adds to or deletes from). The first that can't ends them: it takes its own turn,
   * so the order holds.
   */
  private async followers(
    r: DispatchReceipt,
    request: Extract<MarketplaceRequest, { api: 'listings' }>,
    queue: TargetQueue,
  ): Promise<Array<{ receipt: DispatchReceipt; request: MarketplaceRequest }>> {
    const found: Array<{ receipt: DispatchReceipt; request: MarketplaceRequest }> = [];
    const now = this.deps.now();
    for (const id of queue.order.slice(queue.order.indexOf(r.id) + 1)) {
      if (found.length >= this.deps.batchSize - 1) break;
      const c = await queue.receipt(id);
      const step = c && nextDispatch([c], now, this.deps.backoff);
      // settled since the read model listed it
      if (!step || step.kind === 'idle') continue;
      if (step.kind !== 'send' || (await queue.withheld(c!))) break;
      let next: MarketplaceRequest;
      try {
        next = marketplaceRequest(c!);
      } catch {
        break;
      }
      if (
        next.api !== 'listings' ||
        next.sku !== request.sku ||
        next.marketplaceId !== request.marketplaceId ||
        next.body.productType !== request.body.productType ||
        priorsAlong([request.body, ...found.map((f) => (f.request as typeof request).body), next.body], {}).at(-1) ===
          undefined
      )
        break;
      found.push({ receipt: c!, request: next });
    }
    return found;
  }

  /**
   * What each change's target shows before it is sent (the part the request names), so that a
   * lost answer can later be settled absent only on evidence: one read for a listing's patches
   * (each one's prior as it stands after those before it in the call), one list call for a batch of
   * ads entities. Creations have none; a failed read leaves it unknown.
   */
  private async priors(
    batch: ReadonlyArray<{ receipt: DispatchReceipt; request: MarketplaceRequest }>,
    clients: Clients,
  ): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    const changes = batch.filter((b) => !isCreation(b.receipt.action));
    if (changes.length === 0) return found;
    try {
      const first = changes[0]!.request;
      if (first.api === 'listings') {
        const bodies = changes.map((c) => (c.request as typeof first).body);
        const priors = priorsAlong(bodies, await listingAttributes(first, clients));
        changes.forEach((c, i) => found.set(c.receipt.id, priors[i]));
        return found;
      }
      const entities = await listEntities(
        first,
        changes.map((c) => entityId(c.request as typeof first)),
        clients,
      );
      for (const c of changes) {
        const request = c.request as typeof first;
        found.set(c.receipt.id, namedFields(request, entities.get(entityId(request)) ?? null));
      }
    } catch (err) {
      this.deps.logger.warn(
        { receipt_ids: changes.map((c) => c.receipt.id), err: (err as Error).message },
        'reading the targets before sending failed: a lost answer can then end unresolved, never absent',
      );
    }
    return found;
  }

  /**
   * Other targets' next requests that can share this one's HTTP call (same profile, resource and
   * operation): each under its own target lock, taken only if free, and only when it is that
   * target's next request and nothing withholds it.
   */
  private async companions(
    trx: Knex.Transaction,
    r: DispatchReceipt,
    request: MarketplaceRequest,
  ): Promise<Array<{ receipt: DispatchReceipt; request: MarketplaceRequest }>> {
    if (request.api !== 'sp' || this.deps.batchSize <= 1) return [];
    const alike = await queuedAlike(trx, r, request.profileId, this.deps.batchSize * 4);
    const found: Array<{ receipt: DispatchReceipt; request: MarketplaceRequest }> = [];
    const seen = new Set<string>();
    const now = this.deps.now();
    for (const shown of alike) {
      if (found.length >= this.deps.batchSize - 1) break;
      const key = `${shown.target.type}:${shown.target.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const { rows: locked } = (await trx.raw('select pg_try_advisory_xact_lock(?, hashtext(?)) as ok', [
        LOCK_CLASS,
        key,
      ])) as { rows: { ok: boolean }[] };
      if (!locked[0]!.ok) continue;
      const queue = this.queueOf(shown.target, await pendingOfTargetIds(trx, shown.target), shown);
      const prefix = await queue.pending((p) => nextDispatch(p, now, this.deps.backoff).kind !== 'idle');
      const c = prefix.at(-1);
      const step = nextDispatch(prefix, now, this.deps.backoff);
      if (!c || step.kind !== 'send' || step.receipt_id !== shown.id || (await queue.withheld(c))) continue;
      let companion: MarketplaceRequest;
      try {
        companion = marketplaceRequest(c);
      } catch {
        continue;
      }
      if (
        companion.api === 'sp' &&
        companion.resource === request.resource &&
        companion.operation === request.operation
      )
        found.push({ receipt: c, request: companion });
    }
    return found;
  }

  /** Each receipt's answer, all in one write; an uncertain one's first check is then due at once. */
  private async record(
    receipts: readonly DispatchReceipt[],
    verdicts: readonly Verdict[],
    recorded_at: string,
    known: ReadonlyArray<ReceiptStream | undefined>,
  ): Promise<void> {
    await executeMutationCommands(
      this.deps.ctx,
      receipts.map((r, i) => ({ command: answerOf(r.id, verdicts[i]!, recorded_at), known: known[i] })),
    );
    for (const [i, r] of receipts.entries())
      if (verdicts[i]!.kind === 'uncertain') await this.checkSoon(r.id, Date.parse(recorded_at));
  }

  /** The first reconciliation check of a receipt that just became uncertain: at once. */
  private async checkSoon(receipt_id: string, at: number): Promise<void> {
    await this.deps.later({ name: 'reconcile', receipt_id, jobId: `${receipt_id}-check-0`, at });
  }

  /**
   * One reconciliation check of an uncertain receipt (spec 3.4, 8): what a creation made, or
   * whether an update, archive or listing patch shows on its target. Settled, or checked again
   * every `reconcileEveryMs` until the 10-minute mark.
   */
  async reconcile(receipt_id: string): Promise<void> {
    const r = await loadReceipt(this.deps.ctx.store, receipt_id);
    // not due: another job checked it already (a sweep may add one from a lagging read model)
    if (!r || r.status !== 'uncertain' || (r.next_check_at !== null && Date.parse(r.next_check_at) > this.deps.now()))
      return;
    const request = marketplaceRequest(r);
    const clients = await this.deps.clientsFor(r, this.deps.db);
    const found =
      isCreation(r.action) && request.api === 'sp'
        ? { candidates: await this.candidates(r, request, clients.ads) }
        : request.api === 'listings' && r.sent_with.length > 1
          ? await this.callShows(r, request, clients)
          : await observe(request, clients).then(({ shows, observed, parts }) => ({
              shows,
              observed,
              // gone, or showing what it showed before the request: evidence the change did not happen
              unchanged: parts === null || ('prior' in r && sameJson(parts, r.prior)),
            }));
    const now = this.deps.now();
    const next = Math.min(now + this.deps.reconcileEveryMs, Date.parse(r.uncertain_since!) + ABSENT_AFTER_MS);
    const check = { receipt_id, checks: r.checks, checked_at: iso(now), next_at: iso(next) };
    try {
      const { events } = await this.run(
        'candidates' in found
          ? { type: 'ReconcileCreation', ...check, ...found }
          : { type: 'ReconcileChange', ...check, ...found },
        r.known,
      );
      const settled = events[0]?.type;
      if (settled === 'MutationReconciliationChecked')
        await this.deps.later({
          name: 'reconcile',
          receipt_id,
          jobId: `${receipt_id}-check-${r.checks + 1}`,
          at: next,
        });
      // a settled change no longer holds its target: what waited behind it goes now
      if (
        settled === 'MutationChangeConfirmed' ||
        settled === 'MutationChangeAbsent' ||
        (settled === 'MutationUnresolved' && !isCreation(r.action))
      )
        await this.deps.later({ name: 'dispatch', receipt_id, jobId: `${receipt_id}-released`, at: now });
    } catch (err) {
      // usually a concurrent check recorded first or settled the receipt (its answer stands);
      // anything else is worth a look
      if (!(err instanceof DomainError)) throw err;
      const raced = err.extra.stale === true || err.extra.illegal_transition === true;
      this.deps.logger[raced ? 'debug' : 'warn'](
        { receipt_id, detail: err.detail },
        'reconciliation check not recorded',
      );
    }
  }

  /**
   * The effect of a listing's patches sent in one call, which the marketplace applies (or not) as
   * a whole: in effect when the listing shows every patch of the call that stands at its end (a
   * later replace of the same attribute overwrites an earlier patch); not, when every receipt's
   * named part still shows its prior as the call began. Every receipt of the call settles alike.
   */
  private async callShows(
    r: DispatchReceipt,
    request: Extract<MarketplaceRequest, { api: 'listings' }>,
    clients: Clients,
  ): Promise<{ shows: boolean; observed: unknown; unchanged: boolean }> {
    const members = await Promise.all(
      r.sent_with.map((id) => (id === r.id ? r : loadReceipt(this.deps.ctx.store, id))),
    );
    const bodies = members.map((m) => (marketplaceRequest(m!) as typeof request).body);
    const attributes = await listingAttributes(request, clients);
    // what the call began from: each attribute as the prior of the first receipt naming it recorded it
    const initial: Record<string, unknown> = {};
    let known = true;
    for (const m of members) {
      if (!m || !('prior' in m) || m.prior === null || typeof m.prior !== 'object') known = false;
      else for (const [name, value] of Object.entries(m.prior as object)) if (!(name in initial)) initial[name] = value;
    }
    const call = { ...request.body, patches: bodies.flatMap((b) => b.patches) };
    return {
      shows: showsListingPatches(standingPatches(bodies), attributes),
      observed: patchedAttributes(request.body, attributes),
      unchanged: attributes === null || (known && sameJson(patchedAttributes(call, attributes), initial)),
    };
  }

  /** Entities like the one an uncertain creation asked for that appeared after its attempt. */
  private async candidates(
    r: DispatchReceipt,
    request: Extract<MarketplaceRequest, { api: 'sp' }>,
    ads: AdsClient,
  ): Promise<Created[]> {
    const since = Date.parse(r.started_at ?? r.uncertain_since!) - CLOCK_SKEW_MS;
    const item = request.operation === 'create' ? request.item : {};
    const filter = {
      ...(typeof item.campaignId === 'string' ? { campaignIdFilter: { include: [item.campaignId] } } : {}),
      ...(typeof item.adGroupId === 'string' ? { adGroupIdFilter: { include: [item.adGroupId] } } : {}),
      includeExtendedDataFields: true,
    };
    const candidates: Created[] = [];
    const idKey = SP_RESOURCES[request.resource].idKey;
    for await (const page of ads.sp.pages(request.profileId, request.resource, filter)) {
      for (const entity of page as unknown as Record<string, unknown>[]) {
        const createdAt = Date.parse(
          String((entity.extendedData as { creationDateTime?: string } | undefined)?.creationDateTime ?? ''),
        );
        if (!(createdAt >= since) || !matchesCreation(request.resource, item, entity)) continue;
        const providerId = String(entity[idKey]);
        candidates.push({
          type: CREATED_TYPE[r.action as keyof typeof CREATED_TYPE],
          id: adsEntityId(request.creates!, r.account_id, request.profileId, providerId),
          providerId,
        });
      }
    }
    return candidates;
  }

  /**
   * Redis holds only work: every queued or submitting receipt gets a dispatch job and every
   * uncertain receipt whose next check is due a reconciliation job, keyed so a job already
   * waiting isn't added twice. Run at start-up and periodically.
   */
  async sweep(
    enqueue: (jobs: Array<{ name: 'dispatch' | 'reconcile'; receipt_id: string; jobId: string }>) => Promise<void>,
  ): Promise<number> {
    const { sending, due } = await receiptsToSweep(this.deps.db, iso(this.deps.now()));
    const jobs = [
      // a submitting receipt's own job may still be held by a killed worker until BullMQ sees it stalled
      ...sending.map((r) => ({
        name: 'dispatch' as const,
        receipt_id: r.id,
        jobId: r.status === 'submitting' ? `${r.id}-submitting-${r.attempts}` : r.id,
      })),
      ...due.map((r) => ({ name: 'reconcile' as const, receipt_id: r.id, jobId: `${r.id}-sweep-check-${r.checks}` })),
    ];
    if (jobs.length) await enqueue(jobs);
    return jobs.length;
  }
}

/** The command that records a receipt's answer. */
function answerOf(
  receipt_id: string,
  verdict: Verdict,
  recorded_at: string,
): Extract<MutationCommand, { type: 'RecordSubmission' | 'RecordRetryableRejection' | 'RecordUncertain' }> {
  const { http_status, response, request_id, error } = verdict;
  const answer = { receipt_id, http_status, response, request_id, error, recorded_at };
  switch (verdict.kind) {
    case 'submitted':
      return {
        type: 'RecordSubmission',
        ...answer,
        submission_id: verdict.submission_id,
        accepted: verdict.accepted,
        created: verdict.created,
      };
    case 'retryable':
      return { type: 'RecordRetryableRejection', ...answer };
    case 'uncertain':
      return { type: 'RecordUncertain', ...answer, cause: verdict.cause };
  }
}
