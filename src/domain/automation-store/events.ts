import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';

// The store writes of one live run of one automation (`automation_store-<run id>`): recorded once,
// after the run succeeded, all of the run's writes in one event, so they apply together or not at
// all and a rerun of the same run applies nothing twice.

/** One key's new value as JSON text (exactly as the run set it), or null for a delete. */
export const StoreChange = z.object({ key: z.string().min(1), value_json: z.string().nullable() });
export type StoreChange = z.infer<typeof StoreChange>;

export const StoreChangesApplied = z.object({
  automation_id: z.uuid(),
  run_id: z.uuid(),
  /** when the writes were applied; they expire at `expires_at`, 7 days later */
  at: instant,
  expires_at: instant,
  /** one per key, the run's last write of it, in the order of those writes */
  changes: z.array(StoreChange).min(1),
});

export const storeEventSchemas = { StoreChangesApplied } as const;
export type StoreEvent = EventUnion<typeof storeEventSchemas>;
