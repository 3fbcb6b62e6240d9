import { z } from 'zod';

// What withholds requests from the marketplace (spec 3.4, 3.5): a listing's block flag (set by
// update_listing) and a campaign's Automation switch. One stream per controlled target:
// `dispatch-control-<Listing|Campaign>:<local id>`.

const instant = z.iso.datetime({ offset: true });

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
export type DispatchControlEvent =
  | { type: 'ListingBlockSet'; data: z.infer<typeof ListingBlockSet> }
  | { type: 'CampaignAutomationSet'; data: z.infer<typeof CampaignAutomationSet> };
export const DISPATCH_CONTROL_EVENT_TYPES = Object.keys(dispatchControlEventSchemas) as DispatchControlEvent['type'][];
