import { automationDecider } from '../../domain/automation/decide.js';
import { expiredVersions } from '../../domain/automation/compaction.js';
import { liveSlotDecider, liveSlotId } from '../../domain/automation/live-slot.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { automationsWithExpiredVersions } from '../../projections/automations/retention.js';
import { actionsCutoff } from '../automation-run/prune.js';
import { aggregateStream, handleCommandWith, streamName, type CommandContext } from '../shared/handler.js';

// Retention (spec 8): automation code versions are kept a year from the edit; the current version
// stays as long as the automation. The code lives in the automation's own stream, next to what
// must stay, so the stream is compacted: `AutomationCompacted` (the automation as it stands, with
// the versions kept) is appended, then the stream is truncated before it with the store's own
// primitive. Folding and projecting from the compaction give what the whole stream gave, minus the
// expired versions, so rebuilding from what stays gives the live tables.

/** Compacts every automation with a version past its retention at `now`; returns how many versions went. */
export async function pruneAutomationVersions(db: Knex, store: EventStore, now: Date, batch = 100): Promise<number> {
  const before = actionsCutoff(now);
  const ctx: CommandContext = { store, metadata: { actor: { kind: 'worker', id: 'retention' } } };
  let pruned = 0;
  for (;;) {
    const ids = await automationsWithExpiredVersions(db, before, batch);
    let progress = 0;
    for (const id of ids) progress += await compactAutomation(ctx, id, before, now);
    pruned += progress;
    // the read model shows a compaction a moment after it: what it still lists was just done
    if (ids.length < batch || progress === 0) return pruned;
  }
}

/** Compacts one automation's stream; how many versions left it. Idempotent. */
export async function compactAutomation(ctx: CommandContext, id: string, before: Date, now: Date): Promise<number> {
  let expired = 0;
  await handleCommandWith(
    automationDecider,
    id,
    async (state) => {
      expired = expiredVersions(state, before.toISOString()).length;
      const slot =
        state.account_id && state.stream_type
          ? (await aggregateStream(ctx.store, liveSlotDecider, liveSlotId(state.account_id, state.stream_type))).state
          : null;
      return {
        type: 'CompactAutomation' as const,
        automation_id: id,
        expired_before: before.toISOString(),
        live: slot?.live === id,
        at: now.toISOString(),
      };
    },
    ctx,
  );
  // truncating also finishes a compaction whose truncation a crash cut short
  const stream = streamName(automationDecider.aggregate, id);
  const recorded = await ctx.store.readStream(stream);
  const last = recorded.findLast((e) => e.type === 'AutomationCompacted');
  if (last && last.revision > recorded[0]!.revision) await ctx.store.truncateStream(stream, last.revision);
  return expired;
}
