import { recordAutomationRun, type RunRecorded } from '../../commands/automation-run/record.js';
import { applyStoreEffects } from '../../commands/automation-store/apply.js';
import type { CommandContext } from '../../commands/shared/handler.js';
import type { WebhookPosts, WebhookPostsResult } from '../../commands/webhook/posts.js';
import type { MutationOutcome } from '../../domain/automation-run/decide.js';
import type { RunIdentity } from '../../domain/automation-run/events.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { EventStore, Position } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import type { OutboxOutcome } from '../outbox/index.js';
import type { ListingRun } from '../run.js';

// What a live run leaves behind once its outbox was admitted (spec 2.10, 2.13, 2.14, 3.3): its
// store writes (only after a successful run), its webhook posts, then the record of the run with
// its actions. Each step is idempotent per run, so a reactor that crashed half-way and runs the
// event again completes what is missing and doubles nothing. The record comes last: it reports how
// many store keys and posts took effect, and a recorded run is a finished one.

export interface SettleDeps {
  db: Knex;
  store: EventStore;
  enqueueWebhookPosts(input: WebhookPosts): Promise<WebhookPostsResult>;
}

export interface Settled {
  recorded: RunRecorded;
  /** where the store writes landed; the next run of the automation waits for the projector to pass it */
  storePosition: Position | null;
}

/** The outbox as automation actions: a refused outbox is one failed action; dropped pushes leave none (spec 3.3). */
export function mutationOutcomes(outbox: OutboxOutcome | null): MutationOutcome[] {
  if (!outbox) return [];
  if (outbox.rejected) return [{ status: 'failed', error_message: outbox.rejected }];
  return outbox.actions.map((a) => ({
    status: a.status,
    error_message: a.error_message ?? null,
    receipt_id: a.receipt?.id ?? a.report_id ?? null,
    value: a.value,
    action: a.action,
    target: {
      type: a.target?.type ?? null,
      id: a.target?.id ?? null,
      asin: a.asin ?? null,
      sku: a.sku ?? null,
      marketplace_id: a.marketplace_id ?? null,
      title: a.title ?? null,
    },
  }));
}

/** What the run's own effects could not do is the run's error; anything else is ours and is thrown. */
const refusal = (err: unknown, what: string): string => {
  if (err instanceof DomainError && err.code === 'invalid') return `${what}: ${err.message}`;
  throw err;
};

/** The run's identity as its record names it. */
export const runIdentity = (finished: ListingRun, account_id: string, stream_type: string): RunIdentity => ({
  automation_id: finished.caused_by.automation_id,
  automation_version: finished.caused_by.automation_version,
  account_id,
  stream_type,
  event_id: finished.caused_by.event_id!,
  listing_id: finished.listingId,
});

export async function settleLiveRun(
  deps: SettleDeps,
  run: RunIdentity,
  finished: ListingRun,
  at: Date,
): Promise<Settled> {
  const { run_id } = finished;
  // event → run → what the run caused: the marketplace event correlates, the run causes
  const ctx = (causation_id: string): CommandContext => ({
    store: deps.store,
    metadata: {
      actor: { kind: 'automation', id: run.automation_id },
      account_id: run.account_id,
      correlation_id: run.event_id,
      causation_id,
    },
  });
  let error = finished.error?.message ?? null;
  let store_changes = 0;
  let storePosition: Position | null = null;
  let webhook_posts = 0;
  if (error === null && finished.storeEffects.length > 0) {
    try {
      const applied = await applyStoreEffects(deps.db, ctx(run_id), {
        automation_id: run.automation_id,
        run_id,
        at,
        effects: finished.storeEffects,
      });
      store_changes = applied.changes;
      storePosition = applied.position;
    } catch (err) {
      error = refusal(err, 'context.store');
    }
  }
  if (error === null && finished.webhookPosts.length > 0) {
    try {
      const posted = await deps.enqueueWebhookPosts({
        accountId: run.account_id,
        posts: finished.webhookPosts,
        cause: {
          automationId: run.automation_id,
          automationVersion: run.automation_version,
          eventId: run.event_id,
          runId: run_id,
        },
      });
      webhook_posts = posted.deliveries.length;
    } catch (err) {
      error = refusal(err, 'context.webhooks');
    }
  }
  const recorded = await recordAutomationRun(ctx(run.event_id), {
    run,
    at,
    error_message: error,
    missing_fields: finished.missingFieldReads.map((r) => r.path),
    mutations: mutationOutcomes(finished.outbox),
    store_changes,
    webhook_posts,
  });
  return { recorded, storePosition };
}
