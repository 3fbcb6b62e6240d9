import { randomUUID } from 'node:crypto';
import type { AdmissionDeps } from '../commands/admission/admit.js';
import type { Knex } from '../infra/db.js';
import type { ListingRecord } from '../projections/observed/listings-search.js';
import type { ListingsTogether } from './context/listing-lookups.js';
import { automationRunId } from '../domain/automation-run/events.js';
import type { CausedBy } from '../domain/mutation/events.js';
import { DomainError } from '../domain/shared/errors.js';
import type { AccountView } from '../projections/accounts/queries.js';
import { readTogether } from '../infra/db.js';
import { storeSnapshotOf, storeSnapshotQuery } from '../projections/automation-store/queries.js';
import { enabledWebhooksQuery, webhookNamesOf } from '../projections/webhook/queries.js';
import { buildContexts, type BuiltContext, type PastReads } from './context/index.js';
import { admitOutbox, type Admit, type OutboxOutcome } from './outbox/index.js';
import { lookupsOnce, readModelLookups } from '../commands/admission/lookups.js';
import type { LogLine, MissingFieldRead, RunErrorCode, Sandbox, StoreEffect, WebhookPost } from './sandbox/index.js';

// The one orchestrator of an automation run, shared by run_automation (mode 'dry') and the live
// reactor (mode 'live'): build the event's contexts (one per listing it reached), run the handler
// in the sandbox for each, and admit each run's outbox in the given mode.
//
//   const runs = await runAutomation(
//     { db, store, sandbox, logger, notifier? },          // AdmissionDeps (without now) + the sandbox
//     {
//       mode: 'dry' | 'live',
//       automation: { id, version, code },               // id null: inline code (dry runs only)
//       account,                                         // the AccountView the automation belongs to
//       streamType: 'ANY_OFFER_CHANGED',
//       event: { id, payload },                          // id null: a fabricated event (dry runs only)
//       listingId?,                                      // only this listing's context
//       now,
//       past?, store?,                                   // a backtest's: contexts as of the event, its own store
//     },
//   );
//   // → ListingRun[]: one per context built; [] when the event reached nothing
//   // `single: true` (run_automation): several reached and no listingId → throws listing_required
//
// Stable contract (the live reactor builds on it):
// - It records no run and applies no effect itself. A live caller records each ListingRun with
//   recordAutomationRun (actions from `outbox`, or `error`), applies `storeEffects` with
//   applyStoreEffects and enqueues `webhookPosts`, all only when `error` is null.
// - 'live' reads the automation's store snapshot and admits the outbox once per (automation
//   version, event, listing) under `run_id` = automationRunId(...): a rerun replays the first
//   answer. 'dry' gives the handler an empty store (a backtest: its own) and admits nothing (receipts have id null).
// - Handler failures (throw, timeout, memory, code_too_large, event_too_large, an outbox over a
//   run limit) come back as `error` on the ListingRun, never thrown. What is thrown is the
//   context builder's or admission's refusal (DomainError: unknown_stream_type,
//   event_not_replayable, admissions_disabled, busy) or an infrastructure failure, which the
//   live runner retries later.

export interface RunDeps extends Omit<AdmissionDeps, 'now' | 'simulate'> {
  sandbox: Sandbox;
  /** how a live run's outbox is admitted (default admitMutations): the live reactor's batch admits its runs' together */
  admit?: Admit;
  /** ends a phase of the caller's time (a tool call's phase clock, src/mcp/phases.ts) */
  lap?: (phase: string) => void;
  /** awaited before the first handler runs, the contexts read meanwhile (run_automation's dry-run slot) */
  gate?: Promise<unknown>;
}

/** What every run of an automation on an account reads alike: the enabled webhooks' names and its store. */
export interface SharedReads {
  webhooks: string[];
  store: Readonly<Record<string, unknown>>;
}

export interface RunRequest {
  mode: 'dry' | 'live';
  /** the automation's current code and version; `id` null for inline code (dry runs only) */
  automation: { id: string | null; version: number; code: string };
  account: AccountView;
  streamType: string;
  /** the event as the contracts define it (the marketplace's payload); `id` null when fabricated */
  event: { id: string | null; payload: Record<string, unknown> };
  /** only this listing's context (run_automation's `listing_id`) */
  listingId?: string;
  /** run_automation: an event that reached several listings, without `listingId`, is refused with `listing_required` before anything runs */
  single?: boolean;
  now: Date;
  /** a backtest's (mode 'dry'): what contexts read as the log had it at the event's time (buildContexts' `past`) */
  past?: PastReads;
  /** a backtest's (mode 'dry'): the store its own earlier runs left, instead of an empty one */
  store?: Readonly<Record<string, unknown>>;
  /** the live reactor's batch: webhooks and store read once for the batch's runs (readShared), not per run */
  shared?: Promise<SharedReads>;
  /** the live reactor's batch: the listings the event reached, read with the batch's others (ContextRequest.reached) */
  reached?: Promise<ListingRecord[]>;
  /** the live reactor's batch: the reached listings' own lookups, read with the batch's others (readListingsTogether) */
  together?: Promise<ListingsTogether>;
}

export interface RunError {
  code: RunErrorCode;
  message: string;
}

/** One handler run on one context (one listing, or the event's one context outside the Listing scope). */
export interface ListingRun {
  /** the listing the run was about; null outside the Listing scope */
  listingId: string | null;
  run_id: string;
  caused_by: CausedBy;
  /** null when the handler succeeded and its outbox was within the run's limits */
  error: RunError | null;
  logs: LogLine[];
  missingFieldReads: MissingFieldRead[];
  /** the outbox as admitted (live) or decided (dry); null when the handler failed */
  outbox: OutboxOutcome | null;
  /** intents: posted by the live caller after recording the run; a dry run discards them */
  webhookPosts: WebhookPost[];
  /** intents: applied by the live caller with applyStoreEffects; a dry run discards them */
  storeEffects: StoreEffect[];
  durationMs: number;
}

/** An inline-code dry run has no automation: its causation names this placeholder id. */
const INLINE_AUTOMATION = '00000000-0000-4000-8000-000000000000';

export async function runAutomation(deps: RunDeps, request: RunRequest): Promise<ListingRun[]> {
  const { mode, automation, account, event, now } = request;
  if (mode === 'live' && (automation.id === null || event.id === null))
    throw new Error('a live run needs a saved automation and a recorded event');
  // read beside the contexts rather than after them (a live run waits on each round trip); left
  // unused when the event reaches no listing
  const shared =
    request.shared ??
    readShared(deps.db, account.id, mode === 'live' ? [automation.id!] : [], now).then((read) => ({
      webhooks: read.webhooks,
      store: mode === 'live' ? read.stores.get(automation.id!)! : (request.store ?? {}),
    }));
  shared.catch(() => undefined); // awaited below; dropped if the contexts fail first
  const contexts = await buildContexts({
    db: deps.db,
    store: deps.store,
    account,
    streamType: request.streamType,
    event: event.payload,
    ...(request.listingId !== undefined ? { listingId: request.listingId } : {}),
    ...(request.past ? { past: request.past } : {}),
    ...(request.reached ? { reached: request.reached } : {}),
    ...(request.together ? { together: request.together } : {}),
    now,
  });
  deps.lap?.('context');
  if (contexts.length === 0) return [];
  if (request.single && contexts.length > 1) throw listingRequired(contexts);
  const { webhooks, store } = await shared;
  deps.lap?.('webhooks and store');
  if (deps.gate) {
    await deps.gate;
    deps.lap?.('gate');
  }
  const { sandbox, admit, lap, gate: _, ...admission } = deps;
  // a dry run's admission reads the switch and its listing while the handler runs, not after it
  const ahead = mode === 'dry' && !deps.lookups ? lookupsOnce(readModelLookups(deps.db)) : null;
  const lookups = ahead ?? deps.lookups;
  const runs: ListingRun[] = [];
  for (const built of contexts) {
    const listing_id = built.listing?.id ?? null;
    if (ahead) {
      void ahead.paused();
      if (listing_id) void ahead.resolveTarget([account.id], { type: 'Listing', id: listing_id });
    }
    const caused_by: CausedBy = {
      automation_id: automation.id ?? INLINE_AUTOMATION,
      automation_version: automation.version,
      event_id: event.id,
      run_id:
        mode === 'live'
          ? automationRunId({
              automation_id: automation.id!,
              automation_version: automation.version,
              event_id: event.id!,
              listing_id,
            })
          : randomUUID(),
      listing_id,
    };
    const out = await sandbox.run({
      code: automation.code,
      event: event.payload,
      context: built.context,
      webhooks,
      store,
    });
    lap?.('sandbox');
    const base = {
      listingId: listing_id,
      run_id: caused_by.run_id,
      caused_by,
      logs: out.logs,
      missingFieldReads: out.missingFieldReads,
      durationMs: out.durationMs,
    };
    if (!out.ok) {
      runs.push({ ...base, error: out.error, outbox: null, webhookPosts: [], storeEffects: [] });
      continue;
    }
    const outbox = await admitOutbox(
      { ...admission, now, ...(admit ? { admit } : {}), ...(lookups ? { lookups } : {}) },
      {
        mode,
        account,
        caused_by,
        pushed: out.mutations,
        ...(built.listing ? { listing: built.listing } : {}),
        ...(typeof built.context.report === 'object' && built.context.report
          ? { parentReport: String((built.context.report as { id: unknown }).id) }
          : {}),
      },
    );
    lap?.('admission');
    runs.push({
      ...base,
      error: outbox.rejected ? { code: 'execution_error', message: outbox.rejected } : null,
      outbox,
      webhookPosts: out.webhookPosts,
      storeEffects: out.storeEffects,
    });
  }
  return runs;
}

/**
 * The account's enabled webhooks and the store of each automation, in one statement (readTogether):
 * one run's, or a live batch's for all its runs.
 */
export async function readShared(
  db: Knex,
  account_id: string,
  automations: readonly string[],
  now: Date,
): Promise<{ webhooks: string[]; stores: Map<string, Record<string, unknown>> }> {
  const read = await readTogether(db, () => ({
    webhooks: enabledWebhooksQuery(db, account_id),
    ...Object.fromEntries(automations.map((id, i) => [`store${i}`, storeSnapshotQuery(db, id, now)])),
  }));
  return {
    webhooks: webhookNamesOf(read.webhooks),
    stores: new Map(
      automations.map((id, i) => [id, storeSnapshotOf((read as Record<string, unknown[]>)[`store${i}`]!)]),
    ),
  };
}

/** `listing_required`, naming each listing the event reached (sku, marketplace) so the caller can pick one. */
function listingRequired(contexts: BuiltContext[]): DomainError {
  const listings = contexts.map(({ listing }) => ({
    listing_id: listing!.id,
    sku: listing!.sku,
    marketplace_id: listing!.marketplace_id,
  }));
  return new DomainError(
    'listing_required',
    `listing_id: the event reached ${listings.length} listings (${listings.map((l) => `${l.sku} in ${l.marketplace_id}: ${l.listing_id}`).join('; ')}); pass listing_id to run one`,
    { argument: 'listing_id', listings },
  );
}
