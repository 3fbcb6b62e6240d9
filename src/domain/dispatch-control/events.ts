import { z } from 'zod';
import { instant } from '../shared/instant.js';
import type { EventUnion } from '../shared/decider.js';

// What withholds requests from the marketplace (spec 3.4, 3.5): a listing's block flag (set by
// update_listing) and a campaign's Automation switch. One stream per controlled target:
// `dispatch-control-<Listing|Campaign>:<local id>`.

export const ListingBlockSet = z.object({
  account_id: z.uuid(),
  listing_id: z.string().min(1),
  blocked: z.boolean(),
  set_at: instant,
});
export const CampaignAutomationSet = z.object({
  account_id: z.uuid(),
  campaign_id: z.string().min(1),
  enabled: z.boolean(),
  set_at: instant,
});

export const dispatchControlEventSchemas = { ListingBlockSet, CampaignAutomationSet } as const;
export type DispatchControlEvent = EventUnion<typeof dispatchControlEventSchemas>;
