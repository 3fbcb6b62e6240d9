import { marketplaceEventDecider, marketplaceEventId } from '../../domain/event/decide.js';
import type { MarketplaceEventData } from '../../domain/event/events.js';
import type { EventStore } from '../../eventstore/port.js';
import { handleCreations, streamName } from '../shared/handler.js';

// Records pushed marketplace messages, each once: its stream is created with NO_STREAM, so a second
// delivery of the same message id to the same account records nothing.

export const marketplaceEventStream = (account_id: string, message_id: string): string =>
  streamName(marketplaceEventDecider.aggregate, marketplaceEventId(account_id, message_id));

/** 'recorded', or 'duplicate' when this account already has the message. Store failures propagate. */
export async function recordMarketplaceEvent(
  store: EventStore,
  data: MarketplaceEventData,
): Promise<'recorded' | 'duplicate'> {
  return (await recordMarketplaceEvents(store, data.account_id, [data]))[0]!;
}

/**
 * One account's messages in one write (a batched push): per message, in order, 'recorded' or
 * 'duplicate' (already recorded, or earlier in the batch). All or nothing: a store failure records none.
 */
export async function recordMarketplaceEvents(
  store: EventStore,
  account_id: string,
  messages: readonly MarketplaceEventData[],
): Promise<Array<'recorded' | 'duplicate'>> {
  const outcomes = await handleCreations(
    marketplaceEventDecider,
    messages.map((data) => ({
      id: marketplaceEventId(account_id, data.message_id),
      command: { type: 'RecordMarketplaceEvent' as const, ...data, account_id },
    })),
    { store, metadata: { actor: { kind: 'system', id: 'ingestion' }, account_id } },
  );
  return outcomes.map(({ existed }) => (existed ? 'duplicate' : 'recorded'));
}
