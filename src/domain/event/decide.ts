import type { Decider } from '../shared/decider.js';
import { marketplaceEventSchemas, type MarketplaceEvent, type MarketplaceEventData } from './events.js';

// A marketplace message is recorded once: the first delivery records it, any later one (a retry
// after a lost answer, the marketplace sending twice) records nothing.

export interface MarketplaceEventState {
  received: boolean;
}

export type MarketplaceEventCommand = MarketplaceEventData & { type: 'RecordMarketplaceEvent' };

/** The stream id of one message of one account. */
export const marketplaceEventId = (account_id: string, message_id: string): string => `${account_id}.${message_id}`;

export const marketplaceEventDecider: Decider<MarketplaceEventCommand, MarketplaceEventState, MarketplaceEvent> = {
  aggregate: 'event',
  schemas: marketplaceEventSchemas,
  initialState: () => ({ received: false }),
  evolve: () => ({ received: true }),
  decide: ({ type: _, ...data }, state) => (state.received ? [] : [{ type: 'MarketplaceEventReceived', data }]),
};
