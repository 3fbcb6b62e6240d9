import { z } from 'zod';
import type { EventUnion } from '../shared/decider.js';

/**
 * Observed marketplace data enters the log a page at a time: one event per page of an
 * API answer or report, never one per row, so the read side can be rebuilt from the log.
 * `dataset` names what was read (e.g. `listings`, `orders`, `sp_campaigns`,
 * `seller_economics`); `scope` narrows it (a marketplace, a profile, a report window);
 * `page` numbers the pages of one complete read of that scope, from 0.
 */
export const ObservationKey = z.object({
  account_id: z.uuid(),
  dataset: z.string().regex(/^[a-z][a-z0-9_]*$/),
  scope: z.string().min(1),
});

export const PageObserved = ObservationKey.extend({
  page: z.number().int().min(0),
  /** sha256 of the canonical JSON of `rows`: an unchanged page is not recorded again */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  rows: z.array(z.unknown()),
  observed_at: z.iso.datetime(),
});

/** A complete read of the scope ended with `pages` pages; rows of later pages are gone. */
export const SyncCompleted = ObservationKey.extend({
  pages: z.number().int().min(0),
  observed_at: z.iso.datetime(),
});

export type ObservationKey = z.infer<typeof ObservationKey>;
export type PageObserved = z.infer<typeof PageObserved>;
export type SyncCompleted = z.infer<typeof SyncCompleted>;

export const observationEventSchemas = { PageObserved, SyncCompleted } as const;
export type ObservationEvent = EventUnion<typeof observationEventSchemas>;
