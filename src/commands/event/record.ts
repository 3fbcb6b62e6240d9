import { marketplaceEventDecider, marketplaceEventId } from '../../domain/event/decide.js';
import type { MarketplaceEventData } from '../../domain/event/events.js';
import type { EventStore } from '../../eventstore/port.js';
import { handleCreation, streamName } from '../handler.js';

// Records one pushed marketplace message, once: its stream is created with NO_STREAM, so a second
// delivery of the same message id to the same account records nothing.

export const marketplaceEventStream = (account_id: string, message_id: string): string =>
  streamName(marketplaceEventDecider.aggregate, marketplaceEventId(account_id, message_id));

/** 'recorded', or 'duplicate' when this account already has the message. Store failures propagate. */
export async function recordMarketplaceEvent(
  store: EventStore,
  data: MarketplaceEventData,
): Promise<'recorded' | 'duplicate'> {
  const { existed } = await handleCreation(
    marketplaceEventDecider,
    marketplaceEventId(data.account_id, data.message_id),
    { type: 'RecordMarketplaceEvent', ...data },
    { store, metadata: { actor: { kind: 'system', id: 'ingestion' }, account_id: data.account_id } },
  );
  return existed ? 'duplicate' : 'recorded';
}
