import type { AutomationEvent } from '../../src/domain/automation/events.js';

// The automation every automation spec starts from: its ids, author, time and code.

export const automation_id = '0b7d2c10-1111-4222-8333-944444444444';
export const other = '1c8e3d21-2222-4333-9444-a55555555555';
export const account_id = '5d1f4e1a-8a43-4f51-9d2a-6f1f1f1f1f1f';
export const by = 'user-1';
export const at = '2026-11-25T10:00:00.000Z';
export const code = 'function handle(event, context) {}';
export const stream_type = 'ANY_OFFER_CHANGED';

/** AutomationCreated of a draft `Reprice` for ANY_OFFER_CHANGED. */
export const createdData = (id: string = automation_id) => ({
  automation_id: id,
  account_id,
  stream_type,
  title: 'Reprice',
  code,
  operation_dependencies: {},
  source_automation_id: null,
  by,
  at,
});
export const created = (id?: string): AutomationEvent => ({ type: 'AutomationCreated', data: createdData(id) });

/** Automation code pushing a price update of the run's own listing to `price` (a JavaScript expression). */
export const pushPrice = (price: string) => `context.mutations.push({
    target: context.listing,
    action: 'update',
    payload: {
      productType: 'PRODUCT',
      patches: [{ op: 'merge', path: '/attributes/purchasable_offer', value: [{
        marketplace_id: context.listing.marketplace.id,
        currency: context.listing.currencyCode,
        audience: 'ALL',
        our_price: [{ schedule: [{ value_with_tax: ${price} }] }],
      }] }],
    },
  });`;

/** Automation code setting its listing's price to `price` whenever a competitor's offer moves. */
export const setPriceOnExternalChange = (price: number) => `
function handle(event, context) {
  if (event.Payload.AnyOfferChangedNotification.OfferChangeTrigger.OfferChangeType !== 'External') return;
  ${pushPrice(String(price))}
}`;
