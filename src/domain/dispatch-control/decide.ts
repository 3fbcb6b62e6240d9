import type { Decider } from '../shared/decider.js';
import { dispatchControlEventSchemas, type DispatchControlEvent } from './events.js';

// Setting a flag to the value it already has records nothing (update_listing rows are idempotent).

export type DispatchControlCommand =
  | { type: 'SetListingBlock'; account_id: string; listing_id: string; blocked: boolean; at: string }
  | { type: 'SetCampaignAutomation'; account_id: string; campaign_id: string; enabled: boolean; at: string };

/** Whether the target's requests are withheld; null until first set (a listing is unblocked, a campaign's switch on). */
export interface DispatchControlState {
  withheld: boolean | null;
}

export const controlStreamId = (targetType: 'Listing' | 'Campaign', id: string): string => `${targetType}:${id}`;

export function decide(command: DispatchControlCommand, state: DispatchControlState): DispatchControlEvent[] {
  const withheld = command.type === 'SetListingBlock' ? command.blocked : !command.enabled;
  if ((state.withheld ?? false) === withheld) return [];
  return command.type === 'SetListingBlock'
    ? [
        {
          type: 'ListingBlockSet',
          data: {
            account_id: command.account_id,
            listing_id: command.listing_id,
            blocked: command.blocked,
            set_at: command.at,
          },
        },
      ]
    : [
        {
          type: 'CampaignAutomationSet',
          data: {
            account_id: command.account_id,
            campaign_id: command.campaign_id,
            enabled: command.enabled,
            set_at: command.at,
          },
        },
      ];
}

export const evolve = (_state: DispatchControlState, event: DispatchControlEvent): DispatchControlState => ({
  withheld: event.type === 'ListingBlockSet' ? event.data.blocked : !event.data.enabled,
});

export const dispatchControlDecider: Decider<DispatchControlCommand, DispatchControlState, DispatchControlEvent> = {
  aggregate: 'dispatch-control',
  schemas: dispatchControlEventSchemas,
  initialState: () => ({ withheld: null }),
  evolve,
  decide,
};
