import type { Knex } from 'knex';
import { recordMarketplaceEvent } from '../../src/commands/event/record.js';
import type { EventStore } from '../../src/eventstore/port.js';
import { eventFixture } from '../../src/runtime/contracts/index.js';

// A stream of competitor offer changes for live runs, as the live-runs benchmark and the test of
// workers sharing live runs send it: ANY_OFFER_CHANGED events recorded as ingestion records them,
// each naming one listing that is alone in its lane, and a repricing automation that queues one
// price patch per event.

/** Undercuts the lowest price by a cent: one price patch per event. */
export const REPRICE_ONE_PATCH = `
function handle(event, context) {
  const lowest = event.Payload.AnyOfferChangedNotification.Summary.LowestPrices?.[0]?.ListingPrice?.Amount;
  const price = Math.max(1, Math.round((Math.min(lowest, context.listing.price ?? lowest) - 0.01) * 100) / 100);
  context.mutations.push({ target: context.listing, action: 'update', payload: { productType: 'PRODUCT',
    patches: [{ op: 'merge', path: '/attributes/purchasable_offer', value: [{
      marketplace_id: context.listing.marketplace.id, currency: context.listing.currencyCode, audience: 'ALL',
      our_price: [{ schedule: [{ value_with_tax: price }] }] }] }] } });
}`;

export interface OfferTarget {
  asin: string;
  marketplace_id: string;
}

/** The account's listings (not deleted) whose ASIN no other listing of their marketplace shares: an event about one reaches it alone. */
export async function oneLaneListings(db: Knex, account_id: string): Promise<OfferTarget[]> {
  const { rows } = await db.raw<{ rows: OfferTarget[] }>(
    `select c.asin, c.marketplace_id from rm.listing_current c
     join rm.listings l on l.account_id = c.account_id and l.scope = c.scope and l.page = c.page and l.row = c.row
     where c.account_id = ? and coalesce(l.status, '') <> 'DELETED' and (c.marketplace_id, c.asin) in
       (select marketplace_id, asin from rm.listing_current where account_id = ? group by 1, 2 having count(*) = 1)
     order by c.marketplace_id, c.asin`,
    [account_id, account_id],
  );
  return rows;
}

/** Records a competitor's offer change on the listing, under a new message id. */
export async function recordOfferChange(
  store: EventStore,
  account_id: string,
  target: OfferTarget,
  message_id: string,
): Promise<void> {
  const payload = eventFixture('ANY_OFFER_CHANGED')! as any;
  const n = payload.Payload.AnyOfferChangedNotification;
  n.OfferChangeTrigger.ASIN = target.asin;
  n.OfferChangeTrigger.MarketplaceId = target.marketplace_id;
  payload.NotificationMetadata.NotificationId = message_id;
  const at = new Date().toISOString();
  await recordMarketplaceEvent(store, {
    account_id,
    message_id,
    stream_type: 'ANY_OFFER_CHANGED',
    source: 'selling',
    occurred_at: at,
    received_at: at,
    payload,
  });
}
