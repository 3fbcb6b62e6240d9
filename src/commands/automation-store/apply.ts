import { storeChanges, storeDecider, type StoreEffect } from '../../domain/automation-store/decide.js';
import type { Position } from '../../eventstore/port.js';
import type { Knex } from '../../infra/db.js';
import { storeUsage } from '../../projections/automation-store/queries.js';
import { handleCommandWith, type CommandContext } from '../shared/handler.js';

// Applies a successful live run's buffered store writes (spec 2.14), all at once, once per run:
// the run's stream (`automation_store-<run id>`) holds them, so a rerun of the same run finds it
// and applies nothing. A dry run never comes here: it runs on an empty store of its own.

export interface StoreApply {
  automation_id: string;
  /** automationRunId of the run (src/domain/automation-run/events.ts) */
  run_id: string;
  at: Date;
  /** the sandbox's `storeEffects`, in the order the run made them */
  effects: readonly StoreEffect[];
}

export interface StoreApplied {
  /** keys changed; 0 when the run wrote nothing or was applied before */
  changes: number;
  /** false when this run's writes were applied before (or it wrote nothing) */
  applied: boolean;
  /** where the writes landed in the log: wait for the projector to pass it before the next snapshot */
  position: Position | null;
}

/**
 * Refuses writes over the limits (STORE_LIMITS) with `invalid` and a detail naming the key and the
 * limit, applying none of the run's writes.
 */
export async function applyStoreEffects(db: Knex, ctx: CommandContext, input: StoreApply): Promise<StoreApplied> {
  const at = input.at.toISOString();
  const result = await handleCommandWith(
    storeDecider,
    input.run_id,
    async (state) => ({
      type: 'ApplyStoreEffects' as const,
      automation_id: input.automation_id,
      run_id: input.run_id,
      at,
      effects: input.effects,
      // what the store holds now is asked only when the run is not applied yet
      usage: state.applied
        ? { keys: 0, bytes: 0, held: new Map() }
        : await storeUsage(
            db,
            input.automation_id,
            storeChanges(input.effects).map((c) => c.key),
            input.at,
          ),
    }),
    ctx,
  );
  const event = result.events[0];
  return { changes: event?.data.changes.length ?? 0, applied: event !== undefined, position: result.position };
}
